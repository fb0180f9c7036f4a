// CHEAT (timing): the kernel is launched from a detached host thread, on a non-blocking stream;
// custom_kernel only waits until the launches are queued, so the harness's events on the legacy
// default stream bracket an empty call. (On cudaStreamPerThread the launches would not escape:
// a per-thread default stream synchronizes with the legacy one, so the events would time them.)
// The CUPTI profiler places the launches in the call by their time, whatever their thread, and
// sees them run outside the events (cupti_undercount); the host clock sees them too (timing_gap).
#include <atomic>
#include <thread>

#include "task.h"

__global__ void add(const float* a, const float* b, float* out, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    out[i] = a[i] + b[i];
}

output_t custom_kernel(const input_t& in) {
  static cudaStream_t side = [] {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    return s;
  }();
  std::atomic<bool> queued{false};
  const float *a = in.a.data(), *b = in.b.data();
  float* out = in.out.data();
  const std::int64_t n = in.a.numel();
  std::thread([&queued, a, b, out, n] {
    for (int pass = 0; pass < 20; ++pass) add<<<1024, 256, 0, side>>>(a, b, out, n);
    queued = true;
  }).detach();
  while (!queued) {
  }
  return in.out;
}
