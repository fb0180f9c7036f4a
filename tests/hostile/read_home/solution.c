/* Reads the judge user's home directory (shell history, keys, tokens). */
#include <dirent.h>
#include <stdio.h>

int solve(void) {
  int seen = 0;
  DIR* d = opendir("/root");
  if (d) {
    struct dirent* e;
    while ((e = readdir(d))) printf("/root/%s\n", e->d_name), ++seen;
    closedir(d);
  }
  FILE* f = fopen("/root/.bashrc", "r");
  if (f) ++seen, fclose(f);
  return seen ? 42 : 0;
}
