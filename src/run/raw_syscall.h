#pragma once
// System calls made without libc, for the judge's code that runs inside a judged program (the
// main guard, the CUPTI profiler).
//
// A program that defines `write`, `close`, `fcntl`, `getpid` or `getenv` replaces libc's for
// every library loaded into its process, preloaded ones included: the dynamic linker binds each
// imported name to the first definition in its search order, and the program comes first.
// `-Bsymbolic` and hidden visibility only bind a library's references to its *own* definitions;
// `syscall()` is a libc name like any other. An inline `syscall` instruction is bound to
// nothing, so what goes through here cannot be redirected by a symbol of the program.
//
// Header-only and freestanding (no libc function, no libstdc++), so both libraries take it
// without linking anything; the numbers and structs come from kernel headers (macros and
// types only). Each call returns what the kernel does: a negative errno on failure.
#include <asm/unistd.h>
#include <linux/time_types.h>

#include <cstddef>
#include <cstdint>

namespace kjudge::raw {

#if defined(__x86_64__)
inline long call(long n, long a = 0, long b = 0, long c = 0, long d = 0, long e = 0, long f = 0) {
  register long r10 __asm__("r10") = d;
  register long r8 __asm__("r8") = e;
  register long r9 __asm__("r9") = f;
  long ret;
  __asm__ volatile("syscall"
                   : "=a"(ret)
                   : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
  return ret;
}
#elif defined(__aarch64__)
inline long call(long n, long a = 0, long b = 0, long c = 0, long d = 0, long e = 0, long f = 0) {
  register long x8 __asm__("x8") = n;
  register long x0 __asm__("x0") = a;
  register long x1 __asm__("x1") = b;
  register long x2 __asm__("x2") = c;
  register long x3 __asm__("x3") = d;
  register long x4 __asm__("x4") = e;
  register long x5 __asm__("x5") = f;
  __asm__ volatile("svc 0"
                   : "+r"(x0)
                   : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
                   : "memory");
  return x0;
}
#else
#error "kjudge's preloaded libraries make their system calls without libc: x86-64 and aarch64 only"
#endif

inline long write(int fd, const void* p, std::size_t n) {
  return call(__NR_write, fd, reinterpret_cast<long>(p), static_cast<long>(n));
}
inline long pwrite(int fd, const void* p, std::size_t n, long off) {
  return call(__NR_pwrite64, fd, reinterpret_cast<long>(p), static_cast<long>(n), off);
}
inline long pread(int fd, void* p, std::size_t n, long off) {
  return call(__NR_pread64, fd, reinterpret_cast<long>(p), static_cast<long>(n), off);
}
inline long close(int fd) { return call(__NR_close, fd); }
inline long fcntl(int fd, int cmd, long arg = 0) { return call(__NR_fcntl, fd, cmd, arg); }
inline long ftruncate(int fd, long size) { return call(__NR_ftruncate, fd, size); }
inline long lseek(int fd, long off, int whence) { return call(__NR_lseek, fd, off, whence); }
inline long openat(int dirfd, const char* path, int flags, int mode) {
  return call(__NR_openat, dirfd, reinterpret_cast<long>(path), flags, mode);
}
inline int getpid() { return static_cast<int>(call(__NR_getpid)); }
inline int gettid() { return static_cast<int>(call(__NR_gettid)); }
[[noreturn]] inline void exit_group(int code) {
  for (;;) call(__NR_exit_group, code);
}

// The kernel's sigset is one word of 64 signals (what rt_sigprocmask's size argument names).
inline long block_signal(int signo, std::uint64_t* previous) {
  std::uint64_t set = std::uint64_t{1} << (signo - 1);
  return call(__NR_rt_sigprocmask, 0 /* SIG_BLOCK */, reinterpret_cast<long>(&set),
              reinterpret_cast<long>(previous), sizeof set);
}
inline long set_signal_mask(const std::uint64_t* mask) {
  return call(__NR_rt_sigprocmask, 2 /* SIG_SETMASK */, reinterpret_cast<long>(mask), 0,
              sizeof *mask);
}
// Takes a pending `signo` off this thread without waiting.
inline void discard_pending(int signo) {
  std::uint64_t set = std::uint64_t{1} << (signo - 1);
  __kernel_timespec zero{};
  call(__NR_rt_sigtimedwait, reinterpret_cast<long>(&set), 0, reinterpret_cast<long>(&zero),
       sizeof set);
}

// RLIMIT_NOFILE's soft limit, or `fallback`.
inline unsigned long open_files_limit(unsigned long fallback) {
  struct {
    std::uint64_t cur, max;
  } limit{};
  constexpr int kNoFile = 7;  // RLIMIT_NOFILE
  return call(__NR_prlimit64, 0, kNoFile, 0, reinterpret_cast<long>(&limit)) == 0 ? limit.cur
                                                                                  : fallback;
}

inline std::int64_t clock_ns(int clock) {
  __kernel_timespec ts{};
  call(__NR_clock_gettime, clock, reinterpret_cast<long>(&ts));
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

}  // namespace kjudge::raw
