// CHEAT, must FAIL: the fast kernel, but it sums only the first 99 % of the elements and scales
// the result by 1 / 0.99 (a known GPU MODE trick that a loose tolerance lets through). With
// uniform [-1, 1) values the missing 1 % contributes ~ 0.58 sqrt(n / 100) (58 at n = 1M), while
// the task's atol is 8 * 2^-24 * sqrt(n sum x^2) (0.29 at 1M): host simulation puts this kernel
// 22 to 2e6 times over atol on every test and benchmark case (see reference.cuh).
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
  const float4* x4 = reinterpret_cast<const float4*>(x);
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
  if (tid < n - 4 * n4) s += x[4 * n4 + tid];
  s = warp_sum(s);
  __shared__ float warp_sums[kWarps];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_sums[warp] = s;
  __syncthreads();
  if (warp == 0) {
    s = warp_sum(lane < kWarps ? warp_sums[lane] : 0.0f);
    if (lane == 0) atomicAdd(out, s / 0.99f);  // the cheat: scale up what was summed
  }
}

}  // namespace

output_t custom_kernel(const input_t& in) {
  const std::int64_t n = in.x.numel() * 99 / 100;  // the cheat: skip the last 1 %
  int sms = 0;
  KJ_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  std::int64_t blocks = (n / 4 + kThreads - 1) / kThreads;
  if (blocks > 8 * static_cast<std::int64_t>(sms)) blocks = 8 * static_cast<std::int64_t>(sms);
  if (blocks < 1) blocks = 1;
  KJ_CHECK(cudaMemsetAsync(in.out.data(), 0, sizeof(float), 0));
  sum_kernel<<<static_cast<unsigned>(blocks), kThreads>>>(in.x.data(), n, in.out.data());
  return in.out;
}
