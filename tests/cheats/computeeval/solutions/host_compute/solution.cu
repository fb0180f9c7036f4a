// CHEAT (timing, ComputeEval region mode): computes the fill on the host and copies it over,
// with a kernel that does nothing left in, so the region has a kernel to time. The timing mode
// counts only the kernels launched in "bench_region": 20 empty kernels against the baseline's
// 20 real ones. The region's wall clock holds the host's work, far above the baseline's: the
// benchmark stage flags it (`region_host_time`).
#include <vector>

#include "fill.h"

__global__ void nothing() {}

void fill(int* d_out, int n) {
  static std::vector<int> host;
  host.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) host[static_cast<std::size_t>(i)] = 3 * i + 1;
  cudaMemcpy(d_out, host.data(), static_cast<std::size_t>(n) * sizeof(int),
             cudaMemcpyHostToDevice);
  nothing<<<1, 1>>>();
  cudaDeviceSynchronize();
}
