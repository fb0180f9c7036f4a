// CHEAT (shadow_context_header): a wrong fill() that overwrites the problem's context header
// include/fill.h, which the hidden test includes, with one that turns the test's main() into a
// function returning 0 before its checks. ComputeEval lets a solution overwrite a context file;
// kjudge refuses the file: invalid_solution. A wrong fill: every value one too high. The hidden
// test would fail it, were it compiled as its authors wrote it.
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
