#pragma once
// For the libraries the judge preloads into a judged program (the CUPTI profiler, the main
// guard): their channel to the judge is moved out of the program's way. Header-only and plain
// libc, so either library can take it without linking the project.
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <initializer_list>

namespace kjudge {

// `fd` moved above the numbers a program's own dup2(…, 1) or close-all loops over low
// descriptors touch, close-on-exec; `fd` itself (made close-on-exec) when no higher one is free.
inline int move_fd_high(int fd) {
  rlimit limit{};
  rlim_t ceiling = getrlimit(RLIMIT_NOFILE, &limit) == 0 ? limit.rlim_cur : 1024;
  for (int floor : {900, 500, 200, 100, 10}) {
    if (static_cast<rlim_t>(floor) >= ceiling) continue;
    int high = fcntl(fd, F_DUPFD_CLOEXEC, floor);
    if (high >= 0) {
      close(fd);
      return high;
    }
  }
  fcntl(fd, F_SETFD, FD_CLOEXEC);
  return fd;
}

}  // namespace kjudge
