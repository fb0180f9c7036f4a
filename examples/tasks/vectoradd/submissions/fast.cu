// Fast: float4 loads and stores over a grid that fills the GPU, scalar tail.
#include "task.h"

__global__ void add_vec4(const float4* a, const float4* b, float4* out, std::int64_t n4) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n4;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    float4 x = a[i], y = b[i];
    out[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
}

__global__ void add_tail(const float* a, const float* b, float* out, std::int64_t from,
                         std::int64_t n) {
  std::int64_t i = from + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

output_t custom_kernel(const input_t& in) {
  const std::int64_t n = in.a.numel(), n4 = n / 4;
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  if (n4 > 0) {
    std::int64_t blocks = (n4 + 255) / 256;
    if (blocks > sms * 8) blocks = sms * 8;
    add_vec4<<<static_cast<unsigned>(blocks), 256>>>(reinterpret_cast<const float4*>(in.a.data()),
                                                     reinterpret_cast<const float4*>(in.b.data()),
                                                     reinterpret_cast<float4*>(in.out.data()), n4);
  }
  if (n % 4) add_tail<<<1, 4>>>(in.a.data(), in.b.data(), in.out.data(), n4 * 4, n);
  return in.out;
}
