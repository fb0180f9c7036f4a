// CHEAT (rewriting the profiler's record): the solution defines write, pwrite and pwrite64. The
// CUPTI profiler runs inside the benchmark's process (LD_PRELOAD), and a library that wrote its
// record through libc would write it through these: every kernel line ("K <start> <end> …")
// goes out 1 µs long. Measured on the H100 against the profiler as it was (issue 31): speedup
// 10.00 [9.998, 10.002] with no flag. kjudge's profiler now writes on raw system calls
// (src/run/raw_syscall.h): its record never passes through here, and the time stands.
// Before any of that, kjudge refuses a test program that defines a name libc or its guard and
// profiler rely on (src/eval/symbol_scan.h): a build_error, the layer this one sits behind.
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "fill.h"

__global__ void k(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 3 * i + 1;
}

void fill(int* d_out, int n) {
  k<<<(n + 255) / 256, 256>>>(d_out, n);
  cudaDeviceSynchronize();
}

// Every "K a b …" line becomes "K a a+1000 …".
static std::string shrunk(const char* p, size_t n) {
  std::string in(p, n), out;
  size_t at = 0;
  while (at < in.size()) {
    size_t nl = in.find('\n', at);
    std::string line = in.substr(at, nl == std::string::npos ? std::string::npos : nl - at + 1);
    at = nl == std::string::npos ? in.size() : nl + 1;
    if (line.rfind("K ", 0) == 0) {
      char* end = nullptr;
      unsigned long long start = std::strtoull(line.c_str() + 2, &end, 10);
      size_t second = line.find(' ', 2);
      size_t third = second == std::string::npos ? second : line.find(' ', second + 1);
      if (third != std::string::npos)
        line = "K " + std::to_string(start) + " " + std::to_string(start + 1000) + line.substr(third);
    }
    out += line;
  }
  return out;
}

static bool is_record(const void* p, size_t n) {
  return n > 9 && std::memcmp(p, "KJPROF 1 ", 9) == 0;
}

extern "C" ssize_t write(int fd, const void* p, size_t n) {
  if (!is_record(p, n)) return syscall(SYS_write, fd, p, n);
  std::string s = shrunk(static_cast<const char*>(p), n);
  syscall(SYS_write, fd, s.data(), s.size());
  return static_cast<ssize_t>(n);
}

static ssize_t positioned(int fd, const void* p, size_t n, off_t at) {
  if (!is_record(p, n)) return syscall(SYS_pwrite64, fd, p, n, at);
  std::string s = shrunk(static_cast<const char*>(p), n);
  syscall(SYS_pwrite64, fd, s.data(), s.size(), at);
  syscall(SYS_ftruncate, fd, static_cast<off_t>(at + s.size()));
  return static_cast<ssize_t>(n);
}

extern "C" ssize_t pwrite(int fd, const void* p, size_t n, off_t at) {
  return positioned(fd, p, n, at);
}
extern "C" ssize_t pwrite64(int fd, const void* p, size_t n, off_t at) {
  return positioned(fd, p, n, at);
}
