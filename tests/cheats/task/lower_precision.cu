// CHEAT (lower precision, on vectorsum): accumulates in half precision, twice as fast to load
// if the input were half, and far off for a float32 sum of millions of values. Must fail.
#include <cuda_fp16.h>

#include "task.h"

__global__ void half_sum(const float* x, std::int64_t n, float* out) {
  __half s = __float2half(0.0f);
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    s = __hadd(s, __float2half(x[i]));
  atomicAdd(out, __half2float(s));
}

output_t custom_kernel(const input_t& in) {
  cudaMemsetAsync(in.out.data(), 0, sizeof(float));
  half_sum<<<256, 256>>>(in.x.data(), in.x.numel(), in.out.data());
  return in.out;
}
