#pragma once
// kj::Tensor<T>: device memory with a shape, shared like a torch tensor (copies share the
// allocation), so an input can carry a preallocated output buffer that custom_kernel fills and
// returns without the copy or the allocation being timed.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "arena.cuh"

namespace kj {

// The harness's exit status for a failed CUDA call (GPU MODE's EXIT_CUDA_API).
constexpr int kExitCudaError = 110;

inline void check_cuda(cudaError_t e, const char* what, const char* file, int line) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "kjudge harness: CUDA error %s (%s) in %s at %s:%d\n", cudaGetErrorName(e),
               cudaGetErrorString(e), what, file, line);
  std::fflush(stderr);
  std::_Exit(kExitCudaError);
}

#define KJ_CHECK(call) ::kj::check_cuda((call), #call, __FILE__, __LINE__)

// Element conversions through double, for the generators and the comparison.
template <class T>
__host__ __device__ inline T from_double(double v) {
  return static_cast<T>(v);
}
template <>
__host__ __device__ inline __half from_double<__half>(double v) {
  return __float2half(static_cast<float>(v));
}
template <>
__host__ __device__ inline __nv_bfloat16 from_double<__nv_bfloat16>(double v) {
  return __float2bfloat16(static_cast<float>(v));
}
template <class T>
__host__ __device__ inline double to_double(T v) {
  return static_cast<double>(v);
}
template <>
__host__ __device__ inline double to_double<__half>(__half v) {
  return static_cast<double>(__half2float(v));
}
template <>
__host__ __device__ inline double to_double<__nv_bfloat16>(__nv_bfloat16 v) {
  return static_cast<double>(__bfloat162float(v));
}

template <class T>
class Tensor {
 public:
  using value_type = T;
  Tensor() = default;

  // New device memory filled with a value no correct kernel leaves by accident: every byte
  // 0xFF for floating types (NaN, which never passes), 0x80 for integers (-2139062144 for
  // int32), so an element a kernel forgets to write cannot pass as a stale correct result.
  static Tensor empty(std::vector<std::int64_t> shape) {
    Tensor t;
    t.shape_ = std::move(shape);
    std::int64_t n = 1;
    for (std::int64_t d : t.shape_) n *= d;
    t.numel_ = n;
    T* p = nullptr;
    if (n > 0) {
      p = static_cast<T*>(Arena::get().alloc(sizeof(T) * static_cast<std::size_t>(n)));
      if (!p) KJ_CHECK(cudaMalloc(&p, sizeof(T) * static_cast<std::size_t>(n)));
      KJ_CHECK(cudaMemset(p, std::is_integral<T>::value ? 0x80 : 0xFF,
                          sizeof(T) * static_cast<std::size_t>(n)));
    }
    t.mem_ = std::shared_ptr<T>(p, [](T* q) {
      if (q && !Arena::get().release(q)) cudaFree(q);
    });
    return t;
  }
  static Tensor zeros(std::vector<std::int64_t> shape) {
    Tensor t = empty(std::move(shape));
    if (t.numel_ > 0) KJ_CHECK(cudaMemset(t.data(), 0, t.bytes()));
    return t;
  }

  // A tensor over memory someone else owns and frees (the checker's receive buffers of an
  // isolated run, kjudge/split_call.cuh): copies share it, nothing frees it.
  static Tensor view(T* p, std::vector<std::int64_t> shape) {
    Tensor t;
    t.shape_ = std::move(shape);
    std::int64_t n = 1;
    for (std::int64_t d : t.shape_) n *= d;
    t.numel_ = n;
    t.mem_ = std::shared_ptr<T>(p, [](T*) {});
    return t;
  }

  T* data() const { return mem_.get(); }
  std::int64_t numel() const { return numel_; }
  std::size_t bytes() const { return sizeof(T) * static_cast<std::size_t>(numel_); }
  const std::vector<std::int64_t>& shape() const { return shape_; }
  std::int64_t size(int dim) const { return shape_.at(static_cast<std::size_t>(dim)); }
  int dims() const { return static_cast<int>(shape_.size()); }
  explicit operator bool() const { return static_cast<bool>(mem_); }

  std::vector<T> to_host() const {
    std::vector<T> h(static_cast<std::size_t>(numel_));
    if (numel_ > 0) KJ_CHECK(cudaMemcpy(h.data(), data(), bytes(), cudaMemcpyDeviceToHost));
    return h;
  }
  void copy_from_host(const std::vector<T>& h) {
    if (static_cast<std::int64_t>(h.size()) != numel_) {
      std::fprintf(stderr, "kjudge harness: copy_from_host: %zu values for a tensor of %lld\n",
                   h.size(), static_cast<long long>(numel_));
      std::_Exit(kExitCudaError);
    }
    if (numel_ > 0) KJ_CHECK(cudaMemcpy(data(), h.data(), bytes(), cudaMemcpyHostToDevice));
  }

 private:
  std::shared_ptr<T> mem_;
  std::vector<std::int64_t> shape_;
  std::int64_t numel_ = 0;
};

}  // namespace kj
