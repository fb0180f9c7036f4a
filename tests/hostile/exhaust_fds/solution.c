/* Opens descriptors until the kernel says no, then tries for more. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>

int solve(void) {
  int n = 0;
  while (open("/dev/null", O_RDONLY) >= 0 && n < 1000000) ++n;
  struct rlimit r;
  getrlimit(RLIMIT_NOFILE, &r);
  printf("opened %d descriptors (limit %llu)\n", n, (unsigned long long)r.rlim_cur);
  return n > 100000 ? 42 : 0;
}
