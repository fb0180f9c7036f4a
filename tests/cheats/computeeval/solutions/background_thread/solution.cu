// CHEAT (work from a background thread): fill() hands the launch to a detached thread and
// returns; the kernel runs on that thread's own stream after the caller has moved on, partly
// outside the caller's NVTX range. The test's final check still waits for the device.
#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "fill.h"

__global__ void k(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 3 * i + 1;
}

void fill(int* d_out, int n) {
  std::thread([d_out, n] {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    k<<<(n + 255) / 256, 256, 0, cudaStreamPerThread>>>(d_out, n);
    cudaStreamSynchronize(cudaStreamPerThread);
  }).detach();
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
}
