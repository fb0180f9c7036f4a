// CHEAT (output caching by pointer): remembers the output made for each input address and
// returns it again without computing when the same address comes back (what a harness that
// reuses one input per benchmark, like GPU MODE's CUDA eval.cu, rewards). kjudge gives every
// timed call new content; when the allocator hands back an address seen before (16 calls back), the
// cached output is stale and the recheck of every ranked output fails it.
#include <unordered_map>

#include "task.h"

__global__ void add(const float* a, const float* b, float* out, std::int64_t n) {
  std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

output_t custom_kernel(const input_t& in) {
  static std::unordered_map<const float*, output_t> seen;
  auto hit = seen.find(in.a.data());
  if (hit != seen.end() && hit->second.numel() == in.a.numel()) {
    cudaMemcpyAsync(in.out.data(), hit->second.data(), in.out.bytes(), cudaMemcpyDeviceToDevice);
    return in.out;
  }
  const std::int64_t n = in.a.numel();
  add<<<static_cast<unsigned>((n + 255) / 256), 256>>>(in.a.data(), in.b.data(), in.out.data(), n);
  output_t keep = kj::Tensor<float>::empty(in.out.shape());
  cudaMemcpyAsync(keep.data(), in.out.data(), in.out.bytes(), cudaMemcpyDeviceToDevice);
  seen[in.a.data()] = keep;
  return in.out;
}
