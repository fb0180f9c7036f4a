#pragma once
#include "task.h"

__global__ void vectoradd_reference(const float* a, const float* b, float* out, std::int64_t n) {
  std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = a[i] + b[i];
}

inline input_t generate_input(const kj::Spec& spec) {
  const std::int64_t n = spec.get_int("size");
  input_t in{kj::Tensor<float>::empty({n}), kj::Tensor<float>::empty({n}),
             kj::Tensor<float>::empty({n})};
  kj::fill_uniform(in.a, spec.seed(), -1.0, 1.0);
  kj::fill_uniform(in.b, kj::mix64(spec.seed()), -1.0, 1.0);
  return in;
}

inline output_t ref_kernel(const input_t& in) {
  output_t out = kj::Tensor<float>::empty(in.a.shape());
  const std::int64_t n = in.a.numel();
  vectoradd_reference<<<static_cast<unsigned>((n + 255) / 256), 256>>>(in.a.data(), in.b.data(),
                                                                       out.data(), n);
  KJ_CHECK(cudaGetLastError());
  return out;
}

// A float add is exact to half an ulp: any correct kernel gives the same bits.
inline kj::Tolerance tolerance(const input_t&) { return {0.0, 0.0}; }
