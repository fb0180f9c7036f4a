// CHEAT (GPU work between the calls, from a thread of its own): the add itself is honest, on the
// default stream, but the first call starts a thread that keeps launching a small kernel every
// half millisecond, between the timed calls too, to keep the GPU's clocks up while the harness
// makes inputs, flushes L2 and checks outputs. Nothing of it is inside the events; the CUPTI
// profiler sees kernels launched outside every call by a thread that is not the harness's
// (cupti_outside). The thread is stopped and joined when the program exits, before the CUDA
// runtime tears down.
#include <atomic>
#include <chrono>
#include <thread>

#include "task.h"

__global__ void add(const float* a, const float* b, float* out, std::int64_t n) {
  std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

__global__ void keep_warm(float* x) { x[threadIdx.x] += 1.0f; }

namespace {
struct Warmer {
  std::atomic<bool> stop{false};
  std::thread thread;
  Warmer() {
    thread = std::thread([this] {
      cudaStream_t s;
      cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
      float* x = nullptr;
      cudaMalloc(&x, 32 * sizeof(float));
      while (!stop) {
        keep_warm<<<1, 32, 0, s>>>(x);
        cudaStreamSynchronize(s);
        std::this_thread::sleep_for(std::chrono::microseconds(500));
      }
    });
  }
  ~Warmer() {
    stop = true;
    thread.join();
  }
};
}  // namespace

output_t custom_kernel(const input_t& in) {
  static Warmer warmer;  // constructed after the CUDA runtime is up, so destroyed before it
  const std::int64_t n = in.a.numel();
  add<<<static_cast<unsigned>((n + 255) / 256), 256>>>(in.a.data(), in.b.data(), in.out.data(), n);
  return in.out;
}
