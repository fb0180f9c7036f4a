/* Reads a file of another workspace by its absolute path (the test fills in @SIBLING@). */
#include <stdio.h>
#include <string.h>

int solve(void) {
  char buf[256] = {0};
  FILE* f = fopen("@SIBLING@/secret.txt", "r");
  if (!f) return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  printf("stolen: %.*s\n", (int)n, buf);
  return 42;
}
