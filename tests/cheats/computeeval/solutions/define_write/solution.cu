// CHEAT (define_write): a correct fill() whose program defines write. The CUPTI profiler,
// preloaded into the benchmark run, wrote its record with write(), which the dynamic linker binds
// to the program's own definition first: this one divides every duration in the record by ten
// before it passes the bytes on (on the H100, a 10x speedup with no flag). kjudge refuses a test
// program that defines a name the C library or its guard and profiler rely on
// (src/eval/symbol_scan.h): a build_error.
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "fill.h"

__global__ void fill_kernel(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 3 * i + 1;
}

void fill(int* d_out, int n) {
  fill_kernel<<<(n + 255) / 256, 256>>>(d_out, n);
  cudaDeviceSynchronize();
}

// Every run of digits after "dur=" (or any number in a kernel line) shrinks tenfold.
extern "C" ssize_t write(int fd, const void* data, size_t size) {
  std::string text(static_cast<const char*>(data), size);
  if (text.find("kernel") != std::string::npos) {
    std::string out;
    for (std::size_t i = 0; i < text.size();) {
      if (text[i] >= '0' && text[i] <= '9') {
        std::size_t j = i;
        while (j < text.size() && text[j] >= '0' && text[j] <= '9') ++j;
        out += std::to_string(std::strtoull(text.substr(i, j - i).c_str(), nullptr, 10) / 10);
        i = j;
      } else {
        out += text[i++];
      }
    }
    syscall(SYS_write, fd, out.data(), out.size());
    return static_cast<ssize_t>(size);
  }
  return syscall(SYS_write, fd, data, size);
}
