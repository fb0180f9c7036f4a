// CHEAT (defining a name the harness relies on, hidden from the dynamic symbol table): getenv
// with hidden visibility is invisible to the loader but not to the static linker, which binds
// the harness's calls in the same program to it. kjudge reads the submission's object, where
// every definition shows (src/eval/symbol_scan.h): a build failure.
#include <cstdlib>
#include <cstring>

#include "task.h"

extern char** environ;

extern "C" __attribute__((visibility("hidden"))) char* getenv(const char* name) {
  const std::size_t n = std::strlen(name);
  for (char** e = environ; e && *e; ++e)
    if (std::strncmp(*e, name, n) == 0 && (*e)[n] == '=') return *e + n + 1;
  return nullptr;
}

__global__ void add(const float* a, const float* b, float* out, std::int64_t n) {
  std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

output_t custom_kernel(const input_t& in) {
  const std::int64_t n = in.a.numel();
  add<<<static_cast<unsigned>((n + 255) / 256), 256>>>(in.a.data(), in.b.data(), in.out.data(), n);
  return in.out;
}
