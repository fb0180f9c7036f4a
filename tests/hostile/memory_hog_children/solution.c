/* Spreads a memory hog over 8 processes of 160 MiB each (1.25 GiB together), so that a
 * per-process limit does not see it. Each child stops by itself. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int solve(void) {
  const int kids = 8;
  const size_t chunk = 1 << 20, each = 160;
  int fds[2];
  if (pipe(fds) != 0) return 0;
  for (int k = 0; k < kids; ++k) {
    if (fork() == 0) {
      size_t got = 0;
      for (; got < each; ++got) {
        char* p = malloc(chunk);
        if (!p) break;
        memset(p, 'x', chunk);
      }
      char ok = got == each;
      if (write(fds[1], &ok, 1) != 1) _exit(1);
      sleep(2); /* hold the memory while the others take theirs */
      _exit(0);
    }
  }
  close(fds[1]);
  int held = 0;
  char ok;
  while (read(fds[0], &ok, 1) == 1) held += ok;
  while (wait(NULL) > 0) {
  }
  printf("%d of %d children held 160 MiB each\n", held, kids);
  return held == kids ? 42 : 0;
}
