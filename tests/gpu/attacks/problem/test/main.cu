#include <cstdio>
#include <cuda_runtime.h>
#include "fill.h"
int main() {
  const int n = 1 << 20;
  int* d = nullptr;
  if (cudaMalloc(&d, n * sizeof(int)) != cudaSuccess) { std::puts("cudaMalloc failed"); return 1; }
  fill(d, n);
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { std::printf("CUDA error: %s\n", cudaGetErrorString(e)); return 1; }
  static int h[1 << 20];
  e = cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) { std::printf("CUDA error: %s\n", cudaGetErrorString(e)); return 1; }
  for (int i = 0; i < n; ++i)
    if (h[i] != 3 * i + 1) { std::printf("wrong at %d\n", i); return 1; }
  std::puts("ok");
  return 0;
}
