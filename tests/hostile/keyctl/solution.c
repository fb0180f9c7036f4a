/* The kernel keyrings are not namespaced: reads or plants a key visible to the whole machine. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int solve(void) {
  long kr = syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -3 /* session */, 0);
  int get = kr >= 0 ? 0 : errno;
  long k = syscall(SYS_add_key, "user", "kjhostile", "x", 1, -4 /* user keyring */);
  int add = k >= 0 ? 0 : errno;
  printf("keyctl=%s add_key=%s\n", strerror(get), strerror(add));
  return (get == 0 || add == 0) ? 42 : 0;
}
