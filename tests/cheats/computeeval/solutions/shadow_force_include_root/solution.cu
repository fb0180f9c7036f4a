// CHEAT (shadow_force_include_root): a wrong fill() that brings cuda_runtime.h at the workspace's
// root: nvcc's -include looks in the working directory first, with no -I at all. Refused:
// invalid_solution. A wrong fill: every value one too high. The hidden test would fail it, were it
// compiled as its authors wrote it.
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
