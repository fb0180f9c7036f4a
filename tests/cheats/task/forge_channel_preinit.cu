// CHEAT (forging the result channel, ahead of everything): an entry of its own in .preinit_array,
// which the loader runs before every constructor, to read KJUDGE_RESULT_FD and the nonce before
// the harness's entry (harness/kjudge/channel.h) takes them. Linked after the harness it would
// run second and find nothing; a link order that put it first would win the race. The judge
// refuses any program with a .preinit_array entry besides the harness's (build failure).
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "task.h"

namespace {
int g_dup = -1;

void before_everything(int, char**, char** envp) {
  for (char** e = envp; e && *e; ++e)
    if (std::strncmp(*e, "KJUDGE_RESULT_FD=", 17) == 0) g_dup = dup(std::atoi(*e + 17));
}
[[gnu::section(".preinit_array"), gnu::used]] void (*g_entry)(int, char**,
                                                              char**) = before_everything;
}  // namespace

__global__ void add(const float* a, const float* b, float* out, std::int64_t n) {
  std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

output_t custom_kernel(const input_t& in) {
  const std::int64_t n = in.a.numel();
  add<<<static_cast<unsigned>((n + 255) / 256), 256>>>(in.a.data(), in.b.data(), in.out.data(), n);
  return in.out;
}
