// The cheat corpus's ComputeEval problem: checks fill() once, and with --perf calls it 20 times
// inside the NVTX range "bench_region" that the problem's timing mode (region, kernel time)
// measures.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "fill.h"

int main(int argc, char** argv) {
  const int n = 1 << 24;
  int* d = nullptr;
  if (cudaMalloc(&d, n * sizeof(int)) != cudaSuccess) return 1;
  if (argc > 1 && std::strcmp(argv[1], "--perf") == 0) {
    nvtxRangePushA("bench_region");
    for (int i = 0; i < 20; ++i) fill(d, n);
    nvtxRangePop();
    cudaDeviceSynchronize();
  }
  cudaMemset(d, 0, n * sizeof(int));
  fill(d, n);
  if (cudaDeviceSynchronize() != cudaSuccess) return 1;
  std::vector<int> h(n);
  cudaMemcpy(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i)
    if (h[i] != 3 * i + 1) {
      std::printf("wrong at %d\n", i);
      return 1;
    }
  std::puts("ok");
  return 0;
}
