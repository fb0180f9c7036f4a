// CHEAT (loose tolerance, on vectorsum): sums every 16th element and scales by 16, an estimate
// that a tolerance sized for "any summation order" would have to be very loose to accept. The
// task's atol is computed from the input (reference.cuh): this must fail.
#include "task.h"

__global__ void sampled_sum(const float* x, std::int64_t n, float* out) {
  float s = 0;
  for (std::int64_t i = (blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x) * 16;
       i < n; i += static_cast<std::int64_t>(gridDim.x) * blockDim.x * 16)
    s += x[i];
  atomicAdd(out, 16.0f * s);
}

output_t custom_kernel(const input_t& in) {
  cudaMemsetAsync(in.out.data(), 0, sizeof(float));
  sampled_sum<<<256, 256>>>(in.x.data(), in.x.numel(), in.out.data());
  return in.out;
}
