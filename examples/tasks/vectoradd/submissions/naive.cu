// Naive: one block of 256 threads walks the whole vector.
#include "task.h"

__global__ void add_one_block(const float* a, const float* b, float* out, std::int64_t n) {
  for (std::int64_t i = threadIdx.x; i < n; i += blockDim.x) out[i] = a[i] + b[i];
}

output_t custom_kernel(const input_t& in) {
  add_one_block<<<1, 256>>>(in.a.data(), in.b.data(), in.out.data(), in.a.numel());
  return in.out;
}
