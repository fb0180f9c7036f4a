// CHEAT (output caching by content): hashes the input's first values on the host and returns
// a stored output when it has seen that content before (the 2026 GPU MODE eigh exploit, which
// also kept its cache in /dev/shm across processes). Fresh inputs for every call mean it never
// hits under kjudge; the host copy it needs is what the static pass flags.
#include <cstring>
#include <map>

#include "task.h"

__global__ void add(const float* a, const float* b, float* out, std::int64_t n) {
  std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

output_t custom_kernel(const input_t& in) {
  static std::map<std::uint64_t, output_t> by_content;
  float head[16] = {};
  const std::int64_t n = in.a.numel();
  cudaMemcpy(head, in.a.data(), sizeof(float) * static_cast<std::size_t>(n < 16 ? n : 16),
             cudaMemcpyDeviceToHost);
  std::uint64_t key = 1469598103934665603ull;
  for (float v : head) {
    std::uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    key = (key ^ bits) * 1099511628211ull;
  }
  if (auto hit = by_content.find(key); hit != by_content.end()) return hit->second;
  add<<<static_cast<unsigned>((n + 255) / 256), 256>>>(in.a.data(), in.b.data(), in.out.data(), n);
  by_content[key] = in.out;
  return in.out;
}
