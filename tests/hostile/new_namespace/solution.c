/* Creates a user namespace, where it would be root again, by unshare, clone and clone3. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

int solve(void) {
  int unsh = unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0 ? 0 : errno;
  long c = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
  if (c == 0) _exit(0);
  int clone_err = c > 0 ? 0 : errno;
  if (c > 0) waitpid(c, 0, 0);
#ifdef SYS_clone3
  unsigned long long args[11] = {CLONE_NEWUSER, 0, 0, 0, SIGCHLD};
  long c3 = syscall(SYS_clone3, args, sizeof args);
  if (c3 == 0) _exit(0);
  int clone3_err = c3 > 0 ? 0 : errno;
  if (c3 > 0) waitpid(c3, 0, 0);
#else
  int clone3_err = ENOSYS;
#endif
  int setns_err = syscall(SYS_setns, -1, 0) == 0 ? 0 : errno;
  printf("unshare=%s clone=%s clone3=%s setns=%s\n", strerror(unsh), strerror(clone_err),
         strerror(clone3_err), strerror(setns_err));
  return (unsh == 0 || clone_err == 0 || clone3_err == 0) ? 42 : 0;
}
