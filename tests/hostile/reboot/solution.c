/* Whole-machine calls. The reboot uses a wrong magic number, so a kernel that let it through
 * would answer EINVAL and reboot nothing; sethostname reaches only the sandbox's UTS namespace. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int solve(void) {
  int rb = syscall(SYS_reboot, 0, 0, 0, 0) == 0 ? 0 : errno;
  int sw = syscall(SYS_swapoff, "/kjhostile-none") == 0 ? 0 : errno;
  int hn = sethostname("kjhostile", 9) == 0 ? 0 : errno;
  printf("reboot=%s swapoff=%s sethostname=%s\n", strerror(rb), strerror(sw), strerror(hn));
  return (rb != EPERM || sw != EPERM || hn == 0) ? 42 : 0;
}
