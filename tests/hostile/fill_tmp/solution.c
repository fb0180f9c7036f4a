/* Fills the private /tmp, a tmpfs, i.e. the host's memory. Stops by itself after 512 MiB. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int solve(void) {
  const size_t chunk = 1 << 20, total = 512;
  char* buf = malloc(chunk);
  memset(buf, 'x', chunk);
  size_t written = 0;
  FILE* out = fopen("/tmp/kjhostile-fill", "w");
  if (out) {
    for (size_t i = 0; i < total; ++i) {
      if (fwrite(buf, 1, chunk, out) != chunk) break;
      written += chunk;
    }
    if (fflush(out) != 0) written = 0;
    fclose(out);
  }
  printf("wrote %zu MiB to /tmp\n", written >> 20);
  return written >= total * chunk ? 42 : 0;
}
