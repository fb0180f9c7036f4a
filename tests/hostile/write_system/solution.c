/* Writes into the system: a library path, /etc, and over the compiler. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int try_write(const char* path, int flags) {
  int fd = open(path, flags, 0644);
  printf("%s: %s\n", path, fd >= 0 ? "opened for writing" : strerror(errno));
  if (fd < 0) return 0;
  close(fd);
  return 1;
}

int solve(void) {
  int n = try_write("/usr/kjhostile-@PID@", O_WRONLY | O_CREAT | O_EXCL) +
          try_write("/usr/lib/kjhostile-@PID@", O_WRONLY | O_CREAT | O_EXCL) +
          try_write("/etc/kjhostile-@PID@", O_WRONLY | O_CREAT | O_EXCL) +
          try_write("/etc/passwd", O_WRONLY | O_APPEND) + try_write("/usr/bin/cc", O_WRONLY) +
          try_write("/kjhostile-@PID@", O_WRONLY | O_CREAT | O_EXCL);
  return n ? 42 : 0;
}
