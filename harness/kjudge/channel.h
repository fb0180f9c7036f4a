#pragma once
// The task harness's result channel, taken before any of the submission's code can run.
//
// The judge opens a memfd, writes a random nonce into it, and passes its number in
// KJUDGE_RESULT_FD. The harness takes the number, erases the variable (from the environment and
// from the bytes /proc/self/environ shows), reads the nonce and empties the file. Every record
// carries the nonce; the harness writes them at the very end and seals the file
// (kjudge_harness.cu).
//
// It is taken from an entry in .preinit_array: the loader runs those before every constructor
// of the program and of its shared libraries, whatever their priority. A constructor of
// priority 101, as before, still left constructors of priority 0-100 and .preinit_array entries
// of the submission ahead of it (forge_channel_early.cu read the nonce that way). The only code
// the loader runs earlier is an IFUNC resolver of the program, and the judge refuses a program
// with one, or with a .preinit_array entry besides this one (src/eval/start_code_scan.h).
//
// Include this header in one translation unit of a program only (the harness's). Nothing here
// may need a constructor: the entry runs before them, so the state is constant-initialised and
// the code keeps to system calls and plain byte loops.
#include <fcntl.h>
#include <unistd.h>

#include <cstddef>

namespace kj::channel {

inline int fd = -1;            // the channel; -1 when the harness runs by hand
inline char nonce[128] = "-";  // the nonce every record carries

// Takes the channel named in `envp`, as the loader passes it to a .preinit_array entry.
inline void take(char** envp) {
  static const char name[] = "KJUDGE_RESULT_FD=";
  constexpr std::size_t len = sizeof name - 1;
  for (char** e = envp; e && *e; ++e) {
    std::size_t i = 0;
    while (i < len && (*e)[i] == name[i]) ++i;
    if (i < len) continue;
    int n = 0;
    bool digits = false;
    for (const char* p = *e + len; *p >= '0' && *p <= '9'; ++p, digits = true)
      n = n * 10 + (*p - '0');
    if (digits) fd = n;
    for (char* p = *e; *p; ++p) *p = 'X';  // no '=' left: not a variable any more
  }
  if (fd < 0) return;
  char buf[sizeof nonce] = {};
  const ssize_t got = pread(fd, buf, sizeof buf - 1, 0);
  if (got <= 0) {
    fd = -1;
    return;
  }
  std::size_t k = 0;
  while (k < static_cast<std::size_t>(got) && buf[k] != '\n') nonce[k] = buf[k], ++k;
  nonce[k] = '\0';
  if (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0) {
    fd = -1;
    return;
  }
  fcntl(fd, F_SETFD, FD_CLOEXEC);
}

inline void take_at_start(int, char**, char** envp) { take(envp); }

// The entry itself. `used`: nothing refers to it, and the optimiser must keep it.
[[gnu::section(".preinit_array"), gnu::used]] static void (*take_entry)(int, char**,
                                                                        char**) = take_at_start;

}  // namespace kj::channel
