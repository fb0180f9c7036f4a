#include "saxpy.h"

__host__ __device__ inline float saxpy_elem(float a, float x, float y) { return a * x - y; }

void saxpy(int n, float a, const float* x, float* y) {
  for (int i = 0; i < n; ++i) y[i] = saxpy_elem(a, x[i], y[i]);
}
