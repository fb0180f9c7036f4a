// Takes 16 GiB of host memory (touched, so resident) before answering right: the step's memory
// limit must stop it. Stops by itself at 16 GiB.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include "fill.h"
__global__ void k(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 3 * i + 1;
}
void fill(int* d_out, int n) {
  size_t got = 0;
  for (; got < 16; ++got) {
    char* p = static_cast<char*>(std::malloc(size_t(1) << 30));
    if (!p) break;
    std::memset(p, 1, size_t(1) << 30);
  }
  std::printf("host memory: %zu GiB\n", got);
  k<<<(n + 255) / 256, 256>>>(d_out, n);
}
