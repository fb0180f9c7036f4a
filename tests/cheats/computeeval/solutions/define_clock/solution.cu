// CHEAT (slowing the profiler's clock): the solution defines clock_gettime, running at a tenth of
// its speed. CUPTI reads CLOCK_REALTIME through libc's clock_gettime for every timestamp of its
// activity records (cupti_activity.h), the conversion of the GPU's kernel times into host time
// included, and so did the profiler for its NVTX ranges: a program that defines it would shrink
// what is timed. On the CPU (tests/fixtures/profiler_interpose.c) a 60 ms region came out 6 ms
// against the profiler as it was. kjudge's profiler now reads the vDSO's clock directly and
// hands that clock to CUPTI (cuptiActivityRegisterTimestampCallback): the time stands.
// Before any of that, kjudge refuses a test program that defines a name libc or its guard and
// profiler rely on (src/eval/symbol_scan.h): a build_error, the layer this one sits behind.
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fill.h"

__global__ void k(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 3 * i + 1;
}

void fill(int* d_out, int n) {
  k<<<(n + 255) / 256, 256>>>(d_out, n);
  cudaDeviceSynchronize();
}

extern "C" int clock_gettime(clockid_t clock, struct timespec* ts) noexcept {
  int r = static_cast<int>(syscall(SYS_clock_gettime, clock, ts));
  if (r != 0 || clock != CLOCK_REALTIME) return r;
  static long long base = 0;
  long long ns = ts->tv_sec * 1000000000LL + ts->tv_nsec;
  if (base == 0) base = ns;
  ns = base + (ns - base) / 10;
  ts->tv_sec = ns / 1000000000LL;
  ts->tv_nsec = ns % 1000000000LL;
  return r;
}
