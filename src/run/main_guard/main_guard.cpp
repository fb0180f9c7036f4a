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
// The channel is taken in the library's constructor, before any constructor of the program
// runs: its number from the environment block the loader hands the constructor
// (KJUDGE_MAIN_FD, then taken out of the block), the nonce from the descriptor itself, which
// is emptied at once (run/preload_channel.h). Nothing here calls libc after that but dlsym,
// once, for the real __libc_start_main: the program may define write, snprintf, getpid, close
// or getenv, and every libc call of this library would then be the program's (issue 31). The
// line is written, sealed and read back on raw system calls.
#include <dlfcn.h>

#include "run/preload_channel.h"

namespace {

namespace raw = kjudge::raw;

int g_fd = -1;
char g_nonce[80];
int g_pid = 0;
int (*g_main)(int, char**, char**) = nullptr;

// glibc hands every constructor the process's argc, argv and environment.
__attribute__((constructor)) void take_channel(int, char**, char** envp) {
  char fd_text[16];
  if (!raw::take_env(envp, "KJUDGE_MAIN_FD", fd_text, sizeof fd_text)) return;
  const long fd = raw::parse_decimal(fd_text);
  if (fd < 0 || !raw::is_open(static_cast<int>(fd))) return;
  if (raw::take_nonce(static_cast<int>(fd), g_nonce, sizeof g_nonce) == 0) {
    // No nonce, no line the judge could take: the program keeps no descriptor of the judge's.
    raw::close(static_cast<int>(fd));
    return;
  }
  g_fd = raw::move_fd_high(static_cast<int>(fd));
  g_pid = raw::getpid();
}

std::size_t append(char* out, std::size_t at, const char* text) {
  while (*text != '\0') out[at++] = *text++;
  return at;
}

void report(int code) {
  // Only the process the judge started: a forked child that returns from main is not the test.
  if (g_fd < 0 || raw::getpid() != g_pid) return;
  char line[160];
  std::size_t n = append(line, 0, "kjudge-main ");
  n = append(line, n, g_nonce);
  n = append(line, n, " returned ");
  n += raw::format_decimal(line + n, static_cast<long long>(code));
  line[n++] = '\n';
  const raw::Finish done = raw::finish_report(g_fd, line, n);
  raw::close(g_fd);
  g_fd = -1;
  if (done == raw::Finish::kTampered) {
    static const char msg[] =
        "libkjudge_main_guard: something else wrote to or sealed the judge's channel\n";
    raw::die_tampered(msg, sizeof msg - 1);
  }
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
    raw::write(2, msg, sizeof msg - 1);
    raw::exit_group(127);
  }
  g_main = main;
  return real(guarded_main, argc, argv, init, fini, rtld_fini, stack_end);
}
