/* Uses the descriptors the judge itself inherited from whatever started it: hostile_test.cpp
   starts grading with fd 77 open on a host file (writable) and 78 on a secret, neither
   close-on-exec (a careless parent's `77>>file 78<secret`). Tries them by number, then by name
   among the descriptors of every process it can see (bwrap's pid 1 included). */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int got = 0;

static void use(const char* path, int fd, const char* link) {
  char buf[256];
  if (strstr(link, "kjhostile-fd-secret")) {
    int r = fd >= 0 ? fd : open(path, O_RDONLY);
    ssize_t n = r >= 0 ? pread(r, buf, sizeof buf - 1, 0) : -1;
    if (n > 0) buf[n] = 0, printf("read %s: %s\n", path, buf), got = 1;
  }
  if (strstr(link, "kjhostile-fd-host")) {
    int w = fd >= 0 ? fd : open(path, O_WRONLY | O_APPEND);
    if (w >= 0 && write(w, "kjhostile planted\n", 18) > 0) printf("wrote %s\n", path), got = 1;
  }
}

int solve(void) {
  char buf[256];
  ssize_t n = pread(78, buf, sizeof buf - 1, 0);
  if (n > 0) buf[n] = 0, printf("fd 78: %s\n", buf), got = 1;
  if (write(77, "kjhostile planted\n", 18) > 0) printf("wrote fd 77\n"), got = 1;
  DIR* proc = opendir("/proc");
  struct dirent* p;
  while (proc && (p = readdir(proc))) {
    if (!isdigit((unsigned char)p->d_name[0])) continue;
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%s/fd", p->d_name);
    DIR* fds = opendir(dir);
    struct dirent* f;
    while (fds && (f = readdir(fds))) {
      char path[320], link[256];
      snprintf(path, sizeof path, "%s/%s", dir, f->d_name);
      ssize_t k = readlink(path, link, sizeof link - 1);
      if (k <= 0) continue;
      link[k] = 0;
      use(path, -1, link);
    }
    if (fds) closedir(fds);
  }
  if (proc) closedir(proc);
  return got ? 42 : 0;
}
