#include <unistd.h>

#include "scan.h"

// Correct, but the first call forks a child that sleeps 300 s in the background (same process
// group, inherited stdout/stderr) and never waits for it. The test passes; the judge must kill
// the child.
long long exclusive_scan(int n, const int* in, long long* out) {
  static bool spawned = false;
  if (!spawned) {
    spawned = true;
    if (fork() == 0) {
      sleep(300);
      _exit(0);
    }
  }
  long long acc = 0;
  for (int i = 0; i < n; ++i) {
    out[i] = acc;
    acc += in[i];
  }
  return acc;
}
