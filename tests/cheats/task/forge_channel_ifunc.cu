// CHEAT (forging the result channel, during relocation): an IFUNC whose resolver the loader
// calls while it relocates the program, before any .preinit_array entry or constructor. The
// resolver reads /proc/self/environ with raw system calls for KJUDGE_RESULT_FD and could read
// the nonce from the channel before the harness empties it. The judge refuses any program that
// defines an IFUNC (build failure).
#include <fcntl.h>
#include <unistd.h>

#include <cstring>

#include "task.h"

namespace {
char g_environ[4096];
}

extern "C" int kj_cheat_impl() { return 0; }
extern "C" void* kj_cheat_resolve() {
  const int f = open("/proc/self/environ", O_RDONLY);
  if (f >= 0) {
    if (read(f, g_environ, sizeof g_environ - 1) < 0) g_environ[0] = '\0';
    close(f);
  }
  return reinterpret_cast<void*>(kj_cheat_impl);
}
extern "C" int kj_cheat() __attribute__((ifunc("kj_cheat_resolve")));

__global__ void add(const float* a, const float* b, float* out, std::int64_t n) {
  std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

output_t custom_kernel(const input_t& in) {
  const std::int64_t n = in.a.numel() + kj_cheat();
  add<<<static_cast<unsigned>((n + 255) / 256), 256>>>(in.a.data(), in.b.data(), in.out.data(), n);
  return in.out;
}
