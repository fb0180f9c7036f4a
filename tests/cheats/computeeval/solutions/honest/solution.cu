// The honest solution: the baseline a timed comparison divides by.
#include "fill.h"
__global__ void k(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 3 * i + 1;
}
void fill(int* d_out, int n) {
  k<<<(n + 255) / 256, 256>>>(d_out, n);
  cudaDeviceSynchronize();
}
