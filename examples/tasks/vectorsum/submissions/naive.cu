// Naive: one thread per element, each adding its value into the single output with a float
// atomicAdd. All the atomics go to one address and are serialized in L2 (and the order, so the
// rounding, changes from run to run).
#include "task.h"

__global__ void add_each(const float* x, std::int64_t n, float* out) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) atomicAdd(out, x[i]);
}

output_t custom_kernel(const input_t& in) {
  const std::int64_t n = in.x.numel();
  KJ_CHECK(cudaMemsetAsync(in.out.data(), 0, sizeof(float), 0));  // in.out starts as NaN
  add_each<<<static_cast<unsigned>((n + 255) / 256), 256>>>(in.x.data(), n, in.out.data());
  return in.out;
}
