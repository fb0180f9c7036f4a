// CHEAT (telling warm-up from timed calls by the clock): does the work for the first calls of a
// process (tests, warm-up), then, once they have gone on for a while, returns the output buffer
// untouched. Every timed output is re-checked: it must fail there. The thresholds are low
// (6 calls, 20 ms) because the harness's benchmark processes can be short: with 0.5 s, on the
// H100, a whole benchmark process ended before the cheat began (2026-11-23).
#include <chrono>

#include "task.h"

__global__ void add(const float* a, const float* b, float* out, std::int64_t n) {
  std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

output_t custom_kernel(const input_t& in) {
  static auto start = std::chrono::steady_clock::now();
  static int calls = 0;
  const double s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (++calls > 6 && s > 0.02) return in.out;  // timed by now: skip the work
  const std::int64_t n = in.a.numel();
  add<<<static_cast<unsigned>((n + 255) / 256), 256>>>(in.a.data(), in.b.data(), in.out.data(), n);
  return in.out;
}
