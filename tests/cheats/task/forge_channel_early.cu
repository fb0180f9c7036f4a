// CHEAT (forging the result channel, before the harness takes it): a constructor of priority
// 100 runs before the harness's own (101), reads KJUDGE_RESULT_FD and the nonce, and keeps a
// duplicate of the descriptor; at exit it could rewrite the whole report with the right nonce.
// This one only proves it saw the nonce (it writes one extra, well-formed record, which the
// judge must refuse as an unexpected count). A known limit of an in-process channel
// (docs/tasks.md): the static pass is what names it.
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "task.h"

namespace {
int g_dup = -1;
std::string g_nonce;

__attribute__((constructor(100))) void before_the_harness() {
  const char* fd = std::getenv("KJUDGE_RESULT_FD");
  if (!fd) return;
  g_dup = dup(std::atoi(fd));
  char buf[64] = {};
  if (pread(g_dup, buf, sizeof buf - 1, 0) > 0) g_nonce = std::string(buf).substr(0, 32);
}
}  // namespace

__global__ void add(const float* a, const float* b, float* out, std::int64_t n) {
  std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

output_t custom_kernel(const input_t& in) {
  if (g_dup >= 0 && !g_nonce.empty()) {
    const std::string line = "KJ1 " + g_nonce + " note forged\n";
    if (write(g_dup, line.data(), line.size()) < 0) g_dup = -1;
  }
  const std::int64_t n = in.a.numel();
  add<<<static_cast<unsigned>((n + 255) / 256), 256>>>(in.a.data(), in.b.data(), in.out.data(), n);
  return in.out;
}
