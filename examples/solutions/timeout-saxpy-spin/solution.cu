#include "saxpy.h"

__host__ __device__ inline float saxpy_elem(float a, float x, float y) { return a * x + y; }

void saxpy(int n, float a, const float* x, float* y) {
  // Bug: the loop index is never advanced, so this spins forever on the host.
  volatile int i = 0;
  while (i < n) y[i] = saxpy_elem(a, x[i], y[i]);
}
