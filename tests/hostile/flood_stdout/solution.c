/* Writes 64 MiB to stdout, then answers right: the judge must keep only a capped log. */
#include <stdio.h>
#include <string.h>

int solve(void) {
  static char line[1024];
  memset(line, 'y', sizeof line - 1);
  line[sizeof line - 2] = '\n';
  for (int i = 0; i < 64 * 1024; ++i) fputs(line, stdout);
  return 42;
}
