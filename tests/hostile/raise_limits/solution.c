/* Raises its hard limits (CPU time, descriptors, file size) past what the judge set. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

static int raise_hard(int which, const char* name) {
  struct rlimit r;
  getrlimit(which, &r);
  if (r.rlim_max == RLIM_INFINITY) return 0;
  struct rlimit more = {RLIM_INFINITY, RLIM_INFINITY};
  int rc = setrlimit(which, &more);
  printf("raise %s past %llu: %s\n", name, (unsigned long long)r.rlim_max,
         rc == 0 ? "raised" : strerror(errno));
  return rc == 0;
}

int solve(void) {
  int raised = raise_hard(RLIMIT_CPU, "RLIMIT_CPU") + raise_hard(RLIMIT_NOFILE, "RLIMIT_NOFILE") +
               raise_hard(RLIMIT_FSIZE, "RLIMIT_FSIZE");
  return raised ? 42 : 0;
}
