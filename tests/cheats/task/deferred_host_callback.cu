// CHEAT (deferred work): the call queues a host callback on the default stream and returns; the
// real kernel waits on a side stream until the callback has run (a flag in mapped memory), so it
// runs after the harness's stop event. Host time sees it (timing_gap), the events do not; the
// CUPTI profiler sees the call's kernel run past the events (cupti_undercount).
#include "task.h"

__global__ void add_when_released(const volatile int* release, const float* a, const float* b,
                                  float* out, std::int64_t n) {
  while (*release == 0) {
  }
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    out[i] = a[i] + b[i];
}

namespace {
int* g_flag = nullptr;  // mapped host memory
void CUDART_CB release(void*) { *reinterpret_cast<volatile int*>(g_flag) = 1; }
}  // namespace

output_t custom_kernel(const input_t& in) {
  static cudaStream_t side = [] {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaHostAlloc(&g_flag, sizeof(int), cudaHostAllocMapped);
    return s;
  }();
  int* dflag = nullptr;
  cudaHostGetDevicePointer(&dflag, g_flag, 0);
  *g_flag = 0;
  add_when_released<<<1024, 256, 0, side>>>(dflag, in.a.data(), in.b.data(), in.out.data(),
                                           in.a.numel());
  cudaLaunchHostFunc(0, release, nullptr);
  return in.out;
}
