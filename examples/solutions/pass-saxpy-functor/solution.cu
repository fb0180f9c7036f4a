#include "saxpy.h"

// The per-element rule as a functor usable on host and device.
struct Saxpy {
  float a;
  __host__ __device__ float operator()(float x, float y) const { return a * x + y; }
};

void saxpy(int n, float a, const float* x, float* y) {
  const Saxpy op{a};
  for (int i = 0; i < n; ++i) y[i] = op(x[i], y[i]);
}
