/* Loads and removes kernel modules. Arguments are bogus on purpose: a kernel that let the call
 * through would answer EFAULT/EBADF/ENOENT instead of EPERM, and load nothing. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int solve(void) {
  int init = syscall(SYS_init_module, (void*)0, 0, "") == 0 ? 0 : errno;
  int finit = syscall(SYS_finit_module, -1, "", 0) == 0 ? 0 : errno;
  int del = syscall(SYS_delete_module, "kjhostile_none", 0) == 0 ? 0 : errno;
  printf("init_module=%s finit_module=%s delete_module=%s\n", strerror(init), strerror(finit),
         strerror(del));
  return (init == EPERM && finit == EPERM && del == EPERM) ? 0 : 42;
}
