// CHEAT (forging the result channel): GPU MODE's cheat-fd. Writes a "pass" record into every
// descriptor that might be the judge's channel. The harness took the channel before main and
// its records carry a nonce this code never saw: the judge refuses the whole report. On the H100
// (2026-11-23) the writes also hit the CUDA driver's own descriptors, so the harness failed with
// cudaErrorOperatingSystem first: a fail, and the forgery never counted either way.
#include <unistd.h>

#include <cstring>

#include "task.h"

__global__ void add(const float* a, const float* b, float* out, std::int64_t n) {
  std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

output_t custom_kernel(const input_t& in) {
  static const char forged[] = "KJ1 00000000000000000000000000000000 check pass\n";
  for (int fd = 3; fd < 64; ++fd)
    if (write(fd, forged, std::strlen(forged)) < 0) continue;
  const std::int64_t n = in.a.numel();
  add<<<static_cast<unsigned>((n + 255) / 256), 256>>>(in.a.data(), in.b.data(), in.out.data(), n);
  return in.out;
}
