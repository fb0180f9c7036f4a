/* Tries to kill the judge: its parent, everything it may signal, and the judge's host pid. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int solve(void) {
  int judge = kill(KJ_JUDGE_PID, SIGKILL) == 0 ? 0 : errno;
  int parent = kill(getppid(), SIGKILL) == 0 ? 0 : errno;
  int init = kill(1, SIGKILL) == 0 ? 0 : errno;
  int all = kill(-1, SIGKILL) == 0 ? 0 : errno;
  printf("judge=%s parent=%s init=%s all=%s\n", strerror(judge), strerror(parent), strerror(init),
         strerror(all));
  return 42;
}
