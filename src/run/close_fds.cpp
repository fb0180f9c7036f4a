#include "run/close_fds.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>

namespace kjudge {

namespace {

bool kept(int fd, const int* keep, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (keep[i] == fd) return true;
  return false;
}

// The smallest kept descriptor above `fd`, or INT_MAX.
int next_kept(int fd, const int* keep, std::size_t n) {
  int next = INT_MAX;
  for (std::size_t i = 0; i < n; ++i)
    if (keep[i] > fd && keep[i] < next) next = keep[i];
  return next;
}

bool close_by_range(const int* keep, std::size_t n) {
#ifdef SYS_close_range
  int from = 3;
  while (true) {
    const int stop = next_kept(from - 1, keep, n);  // the first kept one at or above `from`
    if (stop > from) {
      const unsigned last = stop == INT_MAX ? ~0u : static_cast<unsigned>(stop - 1);
      if (syscall(SYS_close_range, static_cast<unsigned>(from), last, 0u) != 0) return false;
    }
    if (stop == INT_MAX) return true;
    from = stop + 1;
  }
#else
  (void)keep;
  (void)n;
  return false;
#endif
}

// The numbers /proc/self/fd lists, read with getdents64 into a buffer on the stack; closing while
// listing is safe, since each pass starts over until a pass closes nothing.
bool close_by_listing(const int* keep, std::size_t n) {
  for (int pass = 0; pass < 64; ++pass) {
    const int dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) return false;
    bool closed_any = false;
    alignas(8) char buf[4096];
    long got;
    while ((got = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0) {
      for (long at = 0; at < got;) {
        const auto* e = reinterpret_cast<const struct dirent64*>(buf + at);
        at += e->d_reclen;
        int fd = 0;
        const char* p = e->d_name;
        if (*p < '0' || *p > '9') continue;
        for (; *p >= '0' && *p <= '9'; ++p) fd = fd * 10 + (*p - '0');
        if (fd < 3 || fd == dir || kept(fd, keep, n)) continue;
        close(fd);
        closed_any = true;
      }
    }
    close(dir);
    if (got < 0) return false;
    if (!closed_any) return true;
  }
  return true;
}

}  // namespace

void close_fds_except(const int* keep, std::size_t n) {
  if (close_by_range(keep, n) || close_by_listing(keep, n)) return;
  struct rlimit limit {};
  const rlim_t top = getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < (1u << 20)
                         ? limit.rlim_cur
                         : (1u << 20);
  for (rlim_t fd = 3; fd < top; ++fd)
    if (!kept(static_cast<int>(fd), keep, n)) close(static_cast<int>(fd));
}

}  // namespace kjudge
