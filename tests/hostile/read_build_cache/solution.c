/* Reads the build cache, where other solutions' binaries and build logs are kept. */
#include <dirent.h>
#include <stdio.h>

int solve(void) {
  DIR* d = opendir("@CACHE@");
  if (!d) return 0;
  struct dirent* e;
  while ((e = readdir(d))) printf("@CACHE@/%s\n", e->d_name);
  closedir(d);
  return 42;
}
