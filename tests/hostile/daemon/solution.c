/* Leaves a daemon behind (double fork, new session, its own process group) and answers right at
 * once, hoping the daemon outlives the step and keeps running on the judge's machine. */
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

int solve(void) {
  if (fork() == 0) {
    setsid();
    if (fork() == 0) {
      prctl(PR_SET_NAME, "kjhostile");
      signal(SIGHUP, SIG_IGN);
      signal(SIGTERM, SIG_IGN);
      for (int i = 0; i < 3; ++i) close(i);
      chdir("/");
      sleep(60);
    }
    _exit(0);
  }
  return 42;
}
