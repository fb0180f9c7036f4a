// CHEAT (persisting L2): sets aside the largest persisting-L2 region and pins both inputs there
// with an access-policy window on the default stream, so that a flush by streaming writes cannot
// evict them (pygpubench#49). The harness takes the set-aside back and resets persisting lines
// before every call: no gain, and the static pass flags the APIs.
#include <algorithm>

#include "task.h"

__global__ void add(const float* a, const float* b, float* out, std::int64_t n) {
  std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

output_t custom_kernel(const input_t& in) {
  int dev = 0, max_persist = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&max_persist, cudaDevAttrMaxPersistingL2CacheSize, dev);
  cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, static_cast<std::size_t>(max_persist));
  cudaStreamAttrValue attr = {};
  attr.accessPolicyWindow.base_ptr = in.a.data();
  // A window larger than the device allows is refused (cudaErrorInvalidValue, which the
  // harness then reports as the call's error): pin as much of the input as one window may hold.
  int max_window = 0;
  cudaDeviceGetAttribute(&max_window, cudaDevAttrMaxAccessPolicyWindowSize, dev);
  attr.accessPolicyWindow.num_bytes =
      std::min(in.a.bytes(), static_cast<std::size_t>(max_window));
  attr.accessPolicyWindow.hitRatio = 1.0f;
  attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  cudaStreamSetAttribute(0, cudaStreamAttributeAccessPolicyWindow, &attr);
  const std::int64_t n = in.a.numel();
  add<<<static_cast<unsigned>((n + 255) / 256), 256>>>(in.a.data(), in.b.data(), in.out.data(), n);
  return in.out;
}
