// CHEAT (stale buffer reuse): computes once, then returns a copy of the first output on every
// later call of the same size. Every timed output is re-checked, in benchmark mode as in the
// ranked run (once only the first one was, in benchmark mode), so both must fail it at the
// second timed call. Nothing in the source is suspicious on its face: this one is for the device
// only.
#include "task.h"

__global__ void add(const float* a, const float* b, float* out, std::int64_t n) {
  std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

output_t custom_kernel(const input_t& in) {
  static output_t first;
  const std::int64_t n = in.a.numel();
  if (first.numel() == n) {
    cudaMemcpyAsync(in.out.data(), first.data(), in.out.bytes(), cudaMemcpyDeviceToDevice);
    return in.out;
  }
  add<<<static_cast<unsigned>((n + 255) / 256), 256>>>(in.a.data(), in.b.data(), in.out.data(), n);
  first = kj::Tensor<float>::empty(in.out.shape());
  cudaMemcpyAsync(first.data(), in.out.data(), in.out.bytes(), cudaMemcpyDeviceToDevice);
  return in.out;
}
