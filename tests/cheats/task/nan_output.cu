// CHEAT (NaN as a wildcard): fills the output with NaN, which passes a comparison written as
// `!(|got - want| > tol)`. kjudge's compare rejects every non-finite value: this must fail.
#include <cmath>

#include "task.h"

__global__ void nan_fill(float* out, std::int64_t n) {
  std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = NAN;
}

output_t custom_kernel(const input_t& in) {
  const std::int64_t n = in.out.numel();
  nan_fill<<<static_cast<unsigned>((n + 255) / 256), 256>>>(in.out.data(), n);
  return in.out;
}
