// libkjudge_main_guard.so: preloaded into a ComputeEval test program (or any pack's), it tells
// the judge whether the program's main() returned, and with what.
//
// A test program passes by exiting with status 0, and the solution is compiled into it: a
// solution that calls exit(0) (or _exit, quick_exit, the exit system call, from any thread)
// ends the process with a passing status before a single check of the test has run. The library
// wraps main (it interposes __libc_start_main, which the program's start code calls through
// the dynamic linker) and writes one line, "kjudge-main <nonce> returned <code>", when main
// comes back; the judge passes a run only when that line is there and agrees with the exit
// status (src/run/main_return.h). Any other way out leaves no line.
//
// The channel (KJUDGE_MAIN_FD, KJUDGE_MAIN_NONCE) is taken in the library's constructor,
// before any constructor of the program runs, and erased from the environment so that neither
// getenv nor /proc/self/environ shows it to the program or to what it starts.
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/high_fd.h"

namespace {

using kjudge::move_fd_high;

int g_fd = -1;
char g_nonce[80] = "-";
pid_t g_pid = 0;
int (*g_main)(int, char**, char**) = nullptr;

// The value; the whole entry in the environment block (what /proc/self/environ reads) is then
// overwritten with 'X's, so no '=' is left and it is no variable to getenv, to the program or
// to what it starts.
bool take_variable(const char* name, char* out, size_t size) {
  char* value = getenv(name);
  if (value == nullptr) return false;
  snprintf(out, size, "%s", value);
  char* entry = value - strlen(name) - 1;
  memset(entry, 'X', strlen(entry));
  return true;
}

__attribute__((constructor)) void take_channel() {
  char fd_text[32] = "", nonce[sizeof g_nonce] = "";
  const bool named = take_variable("KJUDGE_MAIN_FD", fd_text, sizeof fd_text);
  take_variable("KJUDGE_MAIN_NONCE", nonce, sizeof nonce);
  if (!named) return;
  char* end = nullptr;
  long fd = strtol(fd_text, &end, 10);
  if (end == fd_text || *end != '\0' || fd < 0 || fd > 1 << 20 || fcntl(int(fd), F_GETFD) < 0)
    return;
  size_t k = 0;
  for (const char* p = nonce; *p && k + 1 < sizeof g_nonce; ++p)
    if (*p > ' ' && *p < 0x7F) g_nonce[k++] = *p;
  g_nonce[k ? k : 1] = '\0';
  g_fd = move_fd_high(int(fd));
  g_pid = getpid();
}

void report(int code) {
  // Only the process the judge started: a forked child that returns from main is not the test.
  if (g_fd < 0 || getpid() != g_pid) return;
  char line[160];
  int n = snprintf(line, sizeof line, "kjudge-main %s returned %d\n", g_nonce, code);
  // A judge that stopped reading must not turn the program's end into a death by SIGPIPE.
  signal(SIGPIPE, SIG_IGN);
  for (int off = 0; n > 0 && off < n;) {
    ssize_t w = write(g_fd, line + off, size_t(n - off));
    if (w <= 0) break;
    off += int(w);
  }
  close(g_fd);
  g_fd = -1;
}

int guarded_main(int argc, char** argv, char** envp) {
  int code = g_main(argc, argv, envp);
  report(code);
  return code;
}

using StartMain = int (*)(int (*)(int, char**, char**), int, char**, void (*)(), void (*)(),
                          void (*)(), void*);

}  // namespace

// The program's start code calls this with its main; the real one runs the program's
// constructors, then main, then exit() with what main returned.
extern "C" __attribute__((visibility("default"))) int __libc_start_main(
    int (*main)(int, char**, char**), int argc, char** argv, void (*init)(), void (*fini)(),
    void (*rtld_fini)(), void* stack_end) {
  auto real = reinterpret_cast<StartMain>(dlsym(RTLD_NEXT, "__libc_start_main"));
  if (real == nullptr) {
    static const char msg[] = "libkjudge_main_guard: __libc_start_main not found\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(127);
  }
  g_main = main;
  return real(guarded_main, argc, argv, init, fini, rtld_fini, stack_end);
}
