// CHEAT (defining a name the harness relies on: the host clock): the harness times each call
// with std::chrono::steady_clock::now() as well, a function of libstdc++ it calls by name; a
// definition in the submission's object wins at link time and can run the clock at a tenth of
// its speed. A hidden definition is bound just the same by the static linker. kjudge refuses the
// submission (src/eval/symbol_scan.h): a build failure.
#include <time.h>

#include <chrono>

#include "task.h"

namespace std::chrono {
inline namespace _V2 {
__attribute__((visibility("hidden"))) steady_clock::time_point steady_clock::now() noexcept {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  const long long ns = (t.tv_sec * 1000000000LL + t.tv_nsec) / 10;
  return time_point(duration(ns));
}
}  // namespace _V2
}  // namespace std::chrono

__global__ void add(const float* a, const float* b, float* out, std::int64_t n) {
  std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

output_t custom_kernel(const input_t& in) {
  const std::int64_t n = in.a.numel();
  add<<<static_cast<unsigned>((n + 255) / 256), 256>>>(in.a.data(), in.b.data(), in.out.data(), n);
  return in.out;
}
