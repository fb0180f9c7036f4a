#pragma once
// The channel back to the judge of a library the judge preloads into a judged program (the main
// guard, the CUPTI profiler), handled on raw system calls alone (raw_syscall.h says why):
//   - the descriptor's number comes from the environment block the loader hands the library's
//     constructor, never from getenv, and the variable is taken out of that block;
//   - the nonce comes from the descriptor itself, which the judge filled before the program
//     started (ResultChannel::write_nonce); the file is emptied at once, before any code of the
//     program runs, so no secret sits in the environment, in bubblewrap's command line or in a
//     file the program can open;
//   - the report is written once, at offset 0, then the file is sealed against every change and
//     read back, so nothing the program does afterwards, nor a thread racing the write, can
//     leave anything else there unnoticed.
// Header-only, no libc function: each library takes it without linking anything.
#include <errno.h>
#include <fcntl.h>
#include <signal.h>

#include <cstddef>

#include "run/raw_syscall.h"

namespace kjudge::raw {

// Takes "NAME=value" out of `envp` (a null-terminated array: libc's `environ` while constructors
// run): the value into `out` (cut to `size` - 1 bytes), the entry's bytes zeroed (what
// /proc/self/environ shows) and the pointer removed from the array (what getenv and a child see).
// Every entry of that name goes. False when there was none.
inline bool take_env(char** envp, const char* name, char* out, std::size_t size) {
  if (envp == nullptr) return false;
  std::size_t len = 0;
  while (name[len] != '\0') ++len;
  bool found = false;
  char** keep = envp;
  for (char** e = envp; *e != nullptr; ++e) {
    char* entry = *e;
    std::size_t i = 0;
    while (i < len && entry[i] == name[i]) ++i;
    if (i < len || entry[len] != '=') {
      *keep++ = entry;
      continue;
    }
    if (!found && size > 0) {
      std::size_t k = 0;
      for (const char* v = entry + len + 1; *v != '\0' && k + 1 < size; ++v) out[k++] = *v;
      out[k] = '\0';
    }
    found = true;
    for (char* p = entry; *p != '\0'; ++p) *p = '\0';
  }
  *keep = nullptr;
  return found;
}

// A non-negative decimal of at most 9 digits, or -1.
inline long parse_decimal(const char* s) {
  long v = 0;
  int digits = 0;
  for (; *s >= '0' && *s <= '9'; ++s) {
    if (++digits > 9) return -1;
    v = v * 10 + (*s - '0');
  }
  return digits > 0 && *s == '\0' ? v : -1;
}

// `v` in decimal at `p` (room for 20 characters); returns how many it wrote.
inline std::size_t format_decimal(char* p, unsigned long long v) {
  char digits[20];
  std::size_t n = 0;
  do {
    digits[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  for (std::size_t i = 0; i < n; ++i) p[i] = digits[n - 1 - i];
  return n;
}
inline std::size_t format_decimal(char* p, long long v) {
  if (v >= 0) return format_decimal(p, static_cast<unsigned long long>(v));
  p[0] = '-';
  return 1 + format_decimal(p + 1, 0ull - static_cast<unsigned long long>(v));
}

// Whether `fd` is an open descriptor.
inline bool is_open(int fd) { return fd >= 0 && fcntl(fd, F_GETFD) >= 0; }

// The nonce the judge wrote into the channel: its first line, printable characters other than
// space only, into `out` (NUL-terminated). The file is then emptied and its offset set to 0. 0
// when there was none (a file of the judge's that holds no nonce names no channel).
inline std::size_t take_nonce(int fd, char* out, std::size_t size) {
  if (size == 0) return 0;
  char buf[160];
  long got = pread(fd, buf, sizeof buf, 0);
  std::size_t k = 0;
  for (long i = 0; i < got && buf[i] != '\n' && k + 1 < size; ++i)
    if (buf[i] > ' ' && buf[i] < 0x7F) out[k++] = buf[i];
  out[k] = '\0';
  if (ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0) return 0;
  return k;
}

// `fd` moved above the numbers a program's own dup2(…, 1) or close-all loops over low
// descriptors touch, close-on-exec; `fd` itself (made close-on-exec) when no higher one is free.
inline int move_fd_high(int fd) {
  const unsigned long ceiling = open_files_limit(1024);
  static constexpr long kFloors[] = {900, 500, 200, 100, 10};
  for (long floor : kFloors) {
    if (static_cast<unsigned long>(floor) >= ceiling) continue;
    long high = fcntl(fd, F_DUPFD_CLOEXEC, floor);
    if (high >= 0) {
      close(fd);
      return static_cast<int>(high);
    }
  }
  fcntl(fd, F_SETFD, FD_CLOEXEC);
  return fd;
}

// All of `data` on a descriptor that has no offset (a pipe, by hand), without dying of SIGPIPE
// when the reader has gone.
inline bool write_stream(int fd, const char* data, std::size_t n) {
  std::uint64_t previous = 0;
  const bool blocked = block_signal(SIGPIPE, &previous) == 0;
  bool ok = true;
  while (n > 0) {
    long w = write(fd, data, n);
    if (w == -EINTR) continue;
    if (w <= 0) {
      ok = false;
      if (w == -EPIPE) discard_pending(SIGPIPE);
      break;
    }
    data += w;
    n -= static_cast<std::size_t>(w);
  }
  if (blocked) set_signal_mask(&previous);
  return ok;
}

enum class Finish {
  kSealed,    // written, sealed, read back the same
  kUnsealed,  // written where no seal can be (a regular file or a pipe: use by hand)
  kFailed,    // could not be written
  kTampered,  // something else holds the file: sealed or mapped it first, or wrote over ours
};

// Writes `data` as the whole content of the channel, seals it and reads it back.
inline Finish finish_report(int fd, const char* data, std::size_t n) {
  std::size_t done = 0;
  while (done < n) {
    long w = pwrite(fd, data + done, n - done, static_cast<long>(done));
    if (w == -EINTR) continue;
    if (w == -ESPIPE && done == 0)
      return write_stream(fd, data, n) ? Finish::kUnsealed : Finish::kFailed;
    if (w == -EPERM) return Finish::kTampered;  // F_SEAL_WRITE, set by someone else
    if (w <= 0) return Finish::kFailed;
    done += static_cast<std::size_t>(w);
  }
  // Anything longer that was there goes; a file sealed against shrinking was not ours alone.
  long t = ftruncate(fd, static_cast<long>(n));
  if (t == -EPERM) return Finish::kTampered;
  if (t != 0) return Finish::kFailed;
  long s = fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE);
  if (s == -EINVAL) return Finish::kUnsealed;  // not a memfd
  if (s != 0) return Finish::kTampered;        // EPERM: sealed first; EBUSY: a writable mapping
  // A thread that wrote between our write and the seal shows here.
  char buf[4096];
  for (std::size_t at = 0; at <= n; at += sizeof buf) {
    long got = pread(fd, buf, sizeof buf, static_cast<long>(at));
    if (got < 0) return Finish::kFailed;
    const std::size_t want = n - at < sizeof buf ? n - at : sizeof buf;
    if (static_cast<std::size_t>(got) != want) return Finish::kTampered;
    for (std::size_t i = 0; i < want; ++i)
      if (buf[i] != data[at + i]) return Finish::kTampered;
    if (want < sizeof buf) break;
  }
  return Finish::kSealed;
}

// What a library says before it ends a process whose channel was tampered with: the judge then
// sees exit status 111, never a report it could take for the library's.
[[noreturn]] inline void die_tampered(const char* message, std::size_t n) {
  write(2, message, n);
  exit_group(111);
}

}  // namespace kjudge::raw
