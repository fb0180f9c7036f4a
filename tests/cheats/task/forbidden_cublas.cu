// FORBIDDEN LIBRARY (tests/cheats/tasks/vectoradd-forbidden: `forbidden: [cublas]`): a correct
// answer through cuBLAS's saxpy where the task asks for a kernel of one's own. It passes every
// check; only the static pass can say it broke the task's rule.
#include <cublas_v2.h>

#include "task.h"

output_t custom_kernel(const input_t& in) {
  static cublasHandle_t handle = [] {
    cublasHandle_t h;
    cublasCreate(&h);
    return h;
  }();
  const int n = static_cast<int>(in.a.numel());
  const float one = 1.0f;
  cudaMemcpyAsync(in.out.data(), in.b.data(), in.b.bytes(), cudaMemcpyDeviceToDevice);
  cublasSaxpy(handle, n, &one, in.a.data(), 1, in.out.data(), 1);
  return in.out;
}
