// CHEAT (forging the time line): prints ComputeEval's custom timing marker with a tiny time.
// kjudge reads it only for timing_mode custom, and only the last line the benchmark prints;
// under any other mode the profiler's numbers stand. Flagged statically either way.
#include <cstdio>

#include "fill.h"

__global__ void k(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 3 * i + 1;
}

void fill(int* d_out, int n) {
  k<<<(n + 255) / 256, 256>>>(d_out, n);
  cudaDeviceSynchronize();
  std::printf("COMPUTE_EVAL_TIME_MS: 0.001\n");
}
