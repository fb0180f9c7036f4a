// CHEAT (shadow_system_header): a wrong fill() that brings include/cstdio: -I include is searched
// before the system's headers for the test's <cstdio>. Refused: invalid_solution. A wrong fill:
// every value one too high. The hidden test would fail it, were it compiled as its authors wrote
// it.
#include <cuda_runtime.h>

#include "fill.h"

__global__ void fill_kernel(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 3 * i + 2;
}

void fill(int* d_out, int n) {
  fill_kernel<<<(n + 255) / 256, 256>>>(d_out, n);
  cudaDeviceSynchronize();
}
