// CHEAT (moving the timed region): pops the test's "bench_region" range on the first call and
// pushes an empty one of the same name back after its own kernels, so region timing of the
// range stack sees little of the work. The static pass flags the NVTX calls; on the device the
// profiler's region time shows whether the range stack was fooled.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include "fill.h"

__global__ void k(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 3 * i + 1;
}

void fill(int* d_out, int n) {
  nvtxRangePop();
  k<<<(n + 255) / 256, 256>>>(d_out, n);
  cudaDeviceSynchronize();
  nvtxRangePushA("bench_region");
}
