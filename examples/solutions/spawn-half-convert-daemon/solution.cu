#include <sys/wait.h>
#include <unistd.h>

#include "half_ops.h"

// Correct, but on the first call it daemonizes a grandchild (fork, setsid, fork) that sleeps
// 300 s, outside the test's process group and still holding the inherited stdout/stderr.
// The test passes; the judge must not wait for the grandchild, and must kill it.
static void leave_a_daemon() {
  const pid_t child = fork();
  if (child == 0) {
    setsid();
    if (fork() == 0) sleep(300);
    _exit(0);
  }
  if (child > 0) waitpid(child, nullptr, 0);
}

int quantize_to_half(int n, const float* in, __half* out) {
  static bool spawned = false;
  if (!spawned) {
    spawned = true;
    leave_a_daemon();
  }
  int changed = 0;
  for (int i = 0; i < n; ++i) {
    out[i] = __float2half_rn(in[i]);
    if (__half2float(out[i]) != in[i]) ++changed;
  }
  return changed;
}
