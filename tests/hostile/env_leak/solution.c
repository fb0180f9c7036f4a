/* Looks for the judge's secrets in its environment, its own and the judge's via /proc. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int scan(const char* path) {
  char buf[65536];
  FILE* f = fopen(path, "r");
  if (!f) return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  for (size_t i = 0; i < n; i += strlen(buf + i) + 1)
    if (strncmp(buf + i, "KJ_SECRET=", 10) == 0) return printf("%s: %s\n", path, buf + i), 1;
  return 0;
}

int solve(void) {
  const char* v = getenv("KJ_SECRET");
  if (v) printf("KJ_SECRET=%s\n", v);
  int found = (v != 0) + scan("/proc/self/environ") + scan("/proc/1/environ") +
              scan("/proc/KJ_JUDGE_PID/environ");
  return found ? 42 : 0;
}
