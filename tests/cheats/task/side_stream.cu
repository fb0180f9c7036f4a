// CHEAT (timing): the add runs on a stream of its own and custom_kernel returns without waiting,
// so the CUDA events the harness records on the default stream around the call see nothing.
// The harness's host clock (call + device-wide synchronize) still sees it: host_mean_us far
// above mean_us (timing_gap); and the CUPTI profiler sees the kernels the call launched run far
// longer than the events (cupti_undercount). The output is right, so it passes the checks.
#include "task.h"

__global__ void add(const float* a, const float* b, float* out, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    out[i] = a[i] + b[i];
}

output_t custom_kernel(const input_t& in) {
  static cudaStream_t side = [] {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);  // never waits for the default stream
    return s;
  }();
  const std::int64_t n = in.a.numel();
  // Many passes over the data: long enough that the gap between the clocks is unmistakable.
  for (int pass = 0; pass < 20; ++pass)
    add<<<1024, 256, 0, side>>>(in.a.data(), in.b.data(), in.out.data(), n);
  return in.out;
}
