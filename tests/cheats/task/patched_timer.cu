// CHEAT (patched timer): defines cudaEventElapsedTime so that the harness, linked into the same
// program, calls this one: it asks the real runtime through dlsym(RTLD_NEXT) and reports a tenth
// of the time. With the static CUDA runtime kjudge links, the definition collides with the
// runtime's own (a build error) or RTLD_NEXT finds nothing (a crash): it never yields a faster
// time, and the static pass flags it either way.
#include <dlfcn.h>

#include "task.h"

extern "C" cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  using Real = cudaError_t (*)(float*, cudaEvent_t, cudaEvent_t);
  static Real real = reinterpret_cast<Real>(dlsym(RTLD_NEXT, "cudaEventElapsedTime"));
  cudaError_t e = real(ms, start, end);
  *ms *= 0.1f;
  return e;
}

__global__ void add(const float* a, const float* b, float* out, std::int64_t n) {
  std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

output_t custom_kernel(const input_t& in) {
  const std::int64_t n = in.a.numel();
  add<<<static_cast<unsigned>((n + 255) / 256), 256>>>(in.a.data(), in.b.data(), in.out.data(), n);
  return in.out;
}
