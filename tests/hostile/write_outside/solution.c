/* Writes beside its workspace and into the host's /tmp. Only the host can tell where a write
 * landed, so this always answers wrong and the test checks the markers stayed absent. */
#include <stdio.h>

static void drop(const char* path) {
  FILE* f = fopen(path, "w");
  printf("%s: %s\n", path, f ? "written" : "refused");
  if (f) fputs("kjhostile\n", f), fclose(f);
}

int solve(void) {
  drop("@DIR@/marker-write-outside");
  drop("@WORK@/marker-write-outside");
  drop("/tmp/kjhostile-write-outside-@PID@");
  drop("../marker-write-outside");
  return 0;
}
