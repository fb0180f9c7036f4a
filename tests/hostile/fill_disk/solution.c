/* Fills the disk under its workspace with many files, each below the per-file size limit.
 * Stops by itself after 1 GiB so that a sandbox without a quota does not harm the host; having
 * written all of it means nothing bounded the workspace. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int solve(void) {
  const size_t chunk = 1 << 20, per_file = 64, files = 16;
  char* buf = malloc(chunk);
  memset(buf, 'x', chunk);
  size_t written = 0;
  for (size_t f = 0; f < files; ++f) {
    char name[64];
    snprintf(name, sizeof name, "fill-%zu.bin", f);
    FILE* out = fopen(name, "w");
    if (!out) break;
    for (size_t i = 0; i < per_file; ++i) {
      if (fwrite(buf, 1, chunk, out) != chunk) goto full;
      written += chunk;
    }
    if (fclose(out) != 0) break;
    /* Progress on every file, so a step killed at the time limit still says how far it got. */
    printf("wrote %zu MiB\n", written >> 20);
    fflush(stdout);
  }
full:
  printf("wrote %zu MiB\n", written >> 20);
  return written >= files * per_file * chunk ? 42 : 0;
}
