// CHEAT (telling warm-up from timed calls by the clock): does the work while calls come fast
// (warm-up and tests), then, once the calls slow to benchmark pace, returns the previous output
// untouched. Every ranked output is re-checked: it must fail there.
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
  if (++calls > 10 && s > 0.5) return in.out;  // timed by now: skip the work
  const std::int64_t n = in.a.numel();
  add<<<static_cast<unsigned>((n + 255) / 256), 256>>>(in.a.data(), in.b.data(), in.out.data(), n);
  return in.out;
}
