#include "saxpy.h"

// A null pointer the compiler cannot see through.
float* volatile g_scratch = nullptr;

__host__ __device__ inline float saxpy_elem(float a, float x, float y) { return a * x + y; }

void saxpy(int n, float a, const float* x, float* y) {
  float* out = g_scratch;  // bug: writes to scratch instead of y -> SIGSEGV
  for (int i = 0; i < n; ++i) out[i] = saxpy_elem(a, x[i], y[i]);
  for (int i = 0; i < n; ++i) y[i] = out[i];
}
