// Fast: a grid sized to fill the GPU once (8 blocks of 256 threads per SM); each thread keeps
// four float partial sums over a grid-stride walk of float4 loads, the threads' sums meet in warp
// shuffle trees and then across the block's warps, and each block adds its total with one
// atomicAdd: about a thousand atomics instead of one per element, at the full read bandwidth.
#include "task.h"

namespace {

constexpr unsigned kFull = 0xffffffffu;
constexpr int kThreads = 256, kWarps = kThreads / 32;

__device__ __forceinline__ float warp_sum(float v) {
  for (int off = 16; off > 0; off /= 2) v += __shfl_xor_sync(kFull, v, off);
  return v;
}

__global__ void __launch_bounds__(kThreads) sum_kernel(const float* x, std::int64_t n, float* out) {
  const std::int64_t n4 = n / 4;
  const std::int64_t tid = blockIdx.x * static_cast<std::int64_t>(kThreads) + threadIdx.x;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * kThreads;
  const float4* x4 = reinterpret_cast<const float4*>(x);  // cudaMalloc'd: 16-byte aligned
  float4 a = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll 4
  for (std::int64_t i = tid; i < n4; i += stride) {
    const float4 v = x4[i];
    a.x += v.x;
    a.y += v.y;
    a.z += v.z;
    a.w += v.w;
  }
  float s = (a.x + a.y) + (a.z + a.w);
  if (tid < n - 4 * n4) s += x[4 * n4 + tid];  // the last n % 4 elements
  s = warp_sum(s);
  __shared__ float warp_sums[kWarps];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_sums[warp] = s;
  __syncthreads();
  if (warp == 0) {
    s = warp_sum(lane < kWarps ? warp_sums[lane] : 0.0f);
    if (lane == 0) atomicAdd(out, s);
  }
}

}  // namespace

output_t custom_kernel(const input_t& in) {
  const std::int64_t n = in.x.numel();
  int sms = 0;
  KJ_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  std::int64_t blocks = (n / 4 + kThreads - 1) / kThreads;
  if (blocks > 8 * static_cast<std::int64_t>(sms)) blocks = 8 * static_cast<std::int64_t>(sms);
  if (blocks < 1) blocks = 1;
  KJ_CHECK(cudaMemsetAsync(in.out.data(), 0, sizeof(float), 0));  // in.out starts as NaN
  sum_kernel<<<static_cast<unsigned>(blocks), kThreads>>>(in.x.data(), n, in.out.data());
  return in.out;
}
