/* Takes the host's memory: touches 1 GiB, a page at a time. Stops by itself at 1 GiB. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int solve(void) {
  const size_t chunk = 1 << 20, total = 1024;
  size_t got = 0;
  for (; got < total; ++got) {
    char* p = malloc(chunk);
    if (!p) break;
    memset(p, 'x', chunk);
  }
  printf("%s after %zu MiB\n", got < total ? "malloc failed" : "touched all", got);
  return got == total ? 42 : 0;
}
