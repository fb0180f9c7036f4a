#pragma once
// C = A B with A [m, k] and B [k, n] in fp16, C [m, n] in float32, accumulated in float32.
// Reference: one thread per element of C, a float fma over k.
#include <cmath>
#include <stdexcept>

#include "task.h"

__global__ void matmul_reference(const __half* a, const __half* b, float* c, int m, int n, int k) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= n) return;
  float acc = 0.0f;
  for (int p = 0; p < k; ++p)
    acc = fmaf(__half2float(a[static_cast<std::int64_t>(row) * k + p]),
               __half2float(b[static_cast<std::int64_t>(p) * n + col]), acc);
  c[static_cast<std::int64_t>(row) * n + col] = acc;
}

// A and B uniform in [-1, 1), rounded to fp16.
inline input_t generate_input(const kj::Spec& spec) {
  const std::int64_t m = spec.get_int("m"), n = spec.get_int("n"), k = spec.get_int("k");
  if (m < 1 || n < 1 || k < 1 || m > 65535 * 16 || n > (1 << 20) || k > (1 << 20))
    throw std::runtime_error("m must be in [1, 65535 * 16], n and k in [1, 2^20]");
  input_t in{kj::Tensor<__half>::empty({m, k}), kj::Tensor<__half>::empty({k, n}),
             kj::Tensor<float>::empty({m, n})};
  kj::fill_uniform(in.a, kj::mix64(spec.seed() + 0), -1.0, 1.0);
  kj::fill_uniform(in.b, kj::mix64(spec.seed() + 1), -1.0, 1.0);
  return in;
}

inline output_t ref_kernel(const input_t& in) {
  const int m = static_cast<int>(in.a.size(0)), k = static_cast<int>(in.a.size(1));
  const int n = static_cast<int>(in.b.size(1));
  output_t out = kj::Tensor<float>::empty({m, n});
  const dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16);  // grid.y <= 65535
  matmul_reference<<<grid, block>>>(in.a.data(), in.b.data(), out.data(), m, n, k);
  KJ_CHECK(cudaGetLastError());
  return out;
}

// Every product of two fp16 values is exact in float32, so a correct kernel differs from the
// reference only by the order (and on tensor cores the rounding) of its float32 additions. With
// entries uniform in [-1, 1], the partial sums of a dot product are random walks of size
// ~ sqrt(j) / 3 and each addition errs by up to 2^-24 of its partial sum, so the error does not
// shrink with |C| (which is ~ sqrt(k) / 3): rtol 1e-3 covers the part that scales with |C|, and
// atol 4e-5 sqrt(k) (1.3e-3 at k = 1024, 1.8e-3 at k = 2048) the elements near 0.
// Host simulation (400 sampled elements of every test and benchmark case), worst
// |got - want| / (atol + rtol |want|):
//   reverse order 0.008; 32-way split-k 0.008; exact 16-term chunks added with round-toward-zero
//   (a tensor-core-like model) 0.018; every addition rounded toward zero (pessimistic) 0.22;
//   wrong: an fp16 accumulator 10 to 53; inputs rounded to bf16 17 to 41 (k >= 45).
inline kj::Tolerance tolerance(const input_t& in) {
  const double k = static_cast<double>(in.a.size(1));
  return {4e-5 * std::sqrt(k), 1e-3};
}
