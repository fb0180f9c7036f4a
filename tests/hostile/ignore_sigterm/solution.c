/* Ignores every catchable signal, so only SIGKILL can end it. */
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

int solve(void) {
  prctl(PR_SET_NAME, "kjhostile");
  for (int s = 1; s < NSIG; ++s) signal(s, SIG_IGN);
  for (;;) pause();
  return 42;
}
