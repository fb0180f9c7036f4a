// CHEAT (defining a name the harness relies on: write): the harness is linked into the same
// program and writes its records with write(); the static linker binds that call to the
// submission's own definition, which could rewrite every timing record on its way out. kjudge
// reads the submission's object and refuses one that defines a name the C library, the CUDA
// runtime or its harness and profiler rely on (src/eval/symbol_scan.h): a build failure.
#include <sys/syscall.h>
#include <unistd.h>

#include "task.h"

extern "C" ssize_t write(int fd, const void* data, size_t size) {
  return syscall(SYS_write, fd, data, size);  // the forger's hook would go here
}

__global__ void add(const float* a, const float* b, float* out, std::int64_t n) {
  std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

output_t custom_kernel(const input_t& in) {
  const std::int64_t n = in.a.numel();
  add<<<static_cast<unsigned>((n + 255) / 256), 256>>>(in.a.data(), in.b.data(), in.out.data(), n);
  return in.out;
}
