// Issue 6 experiment: does where a call's buffers sit in device memory set its time, and does an
// invocation's mean depend on the few placements it happens to get? A streaming kernel (read
// 64 MB, write 64 MB, like softmax 4096² fp32) timed with CUDA events after an L2 flush, with
// its buffers placed three ways: fixed (one pair for every call), ring (cudaMalloc per call,
// the 16th-oldest freed: the task harness's way), arena (one big allocation, each call's pair
// at random 2 MiB-aligned offsets). Prints per mode: mean, median, std, and a histogram.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <random>
#include <vector>

#define CK(x)                                                                   \
  do {                                                                          \
    cudaError_t e = (x);                                                        \
    if (e != cudaSuccess) {                                                     \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e));              \
      std::exit(1);                                                             \
    }                                                                           \
  } while (0)

__global__ void stream_kernel(const float* __restrict__ x, float* __restrict__ y, size_t n) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n;
       i += size_t{gridDim.x} * blockDim.x)
    y[i] = __expf(x[i]) * 0.5f;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "ring";
  const int calls = argc > 2 ? std::atoi(argv[2]) : 1000;
  const size_t n = size_t{4096} * 4096;
  const size_t bytes = n * sizeof(float);
  const size_t flush_bytes = size_t{256} << 20;
  void* flush;
  CK(cudaMalloc(&flush, flush_bytes));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::mt19937_64 rng(std::random_device{}());
  const size_t arena_bytes = size_t{16} << 30, page = size_t{2} << 20;
  char* arena = nullptr;
  float *fx = nullptr, *fy = nullptr;
  if (!std::strcmp(mode, "arena")) CK(cudaMalloc(&arena, arena_bytes));
  if (!std::strcmp(mode, "fixed")) {
    CK(cudaMalloc(&fx, bytes));
    CK(cudaMalloc(&fy, bytes));
    CK(cudaMemset(fx, 0, bytes));
  }
  std::deque<std::pair<float*, float*>> ring;
  std::vector<float> t;
  for (int c = 0; c < calls + 20; ++c) {
    float *x, *y;
    if (fx) {
      x = fx, y = fy;
    } else if (arena) {
      const size_t slots = (arena_bytes - bytes) / page;
      size_t ox, oy;
      do {
        ox = rng() % slots * page;
        oy = rng() % slots * page;
      } while ((ox < oy ? oy - ox : ox - oy) < bytes);
      x = reinterpret_cast<float*>(arena + ox);
      y = reinterpret_cast<float*>(arena + oy);
    } else {
      CK(cudaMalloc(&x, bytes));
      CK(cudaMalloc(&y, bytes));
      ring.push_back({x, y});
      if (ring.size() > 16) {
        CK(cudaFree(ring.front().first));
        CK(cudaFree(ring.front().second));
        ring.pop_front();
      }
    }
    CK(cudaMemsetAsync(x, c & 0x3f, bytes));  // fresh content, outside the timed region
    CK(cudaMemsetAsync(flush, c, flush_bytes));
    CK(cudaEventRecord(a));
    stream_kernel<<<132 * 8, 512>>>(x, y, n);
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    if (c >= 20) t.push_back(ms * 1000);
  }
  double s = 0, s2 = 0;
  for (float v : t) s += v, s2 += double(v) * v;
  const double mean = s / t.size(), sd = std::sqrt(s2 / t.size() - mean * mean);
  std::vector<float> u = t;
  std::sort(u.begin(), u.end());
  std::printf("%-6s calls %zu mean %.3f median %.3f std %.3f min %.2f max %.2f |", mode, t.size(), mean,
              u[u.size() / 2], sd, u.front(), u.back());
  for (int q = 1; q < 10; ++q) std::printf(" p%d0 %.2f", q, u[u.size() * q / 10]);
  std::printf("\n");
}
