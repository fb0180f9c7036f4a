/* Links out of its workspace and writes through the links. Only the host can tell where the
 * writes landed, so this always answers wrong and the test checks the targets stayed absent. */
#include <stdio.h>
#include <unistd.h>

static void through(const char* target, const char* link) {
  symlink(target, link);
  FILE* f = fopen(link, "w");
  printf("%s -> %s: %s\n", link, target, f ? "written" : "refused");
  if (f) fputs("kjhostile\n", f), fclose(f);
}

int solve(void) {
  through("/tmp/kjhostile-symlink-@PID@", "link-tmp");
  through("@DIR@/marker-symlink", "link-dir");
  through("@SIBLING@/planted.txt", "link-sibling");
  return 0;
}
