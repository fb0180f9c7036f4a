#pragma once
// Row-wise softmax of a float32 matrix. Reference: one thread per row, max subtracted, the sum
// of exponentials in double.
#include <algorithm>
#include <stdexcept>

#include "task.h"

// Inputs: x[r][c] = shift_r + 4 z with z ~ N(0, 1) and one shift per row, uniform in
// [-100, 100). Within a row the values spread over about +-16, so the exponentials span many
// orders of magnitude; the shifts make exp(x) overflow (shift > ~70) or underflow (shift < ~-70)
// in float, so a softmax that does not subtract the row maximum fails.
__global__ void softmax_add_row_shift(float* x, std::int64_t rows, std::int64_t cols,
                                      std::uint64_t seed) {
  const std::int64_t n = rows * cols;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::uint64_t row = static_cast<std::uint64_t>(i / cols);
    x[i] += static_cast<float>(-100.0 + 200.0 * kj::uniform01(seed, row));
  }
}

__global__ void softmax_reference(const float* x, float* out, std::int64_t rows,
                                  std::int64_t cols) {
  const std::int64_t r = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (r >= rows) return;
  const float* row = x + r * cols;
  float* o = out + r * cols;
  float m = row[0];
  for (std::int64_t c = 1; c < cols; ++c) m = fmaxf(m, row[c]);
  double s = 0;
  for (std::int64_t c = 0; c < cols; ++c) s += exp(static_cast<double>(row[c]) - m);
  for (std::int64_t c = 0; c < cols; ++c)
    o[c] = static_cast<float>(exp(static_cast<double>(row[c]) - m) / s);
}

inline input_t generate_input(const kj::Spec& spec) {
  const std::int64_t rows = spec.get_int("rows"), cols = spec.get_int("cols");
  if (rows < 1 || cols < 1) throw std::runtime_error("rows and cols must be at least 1");
  input_t in{kj::Tensor<float>::empty({rows, cols}), kj::Tensor<float>::empty({rows, cols})};
  kj::fill_normal(in.x, kj::mix64(spec.seed() + 0), 0.0, 4.0);
  const std::int64_t blocks = std::min<std::int64_t>((rows * cols + 255) / 256, 65535);
  softmax_add_row_shift<<<static_cast<unsigned>(blocks), 256>>>(in.x.data(), rows, cols,
                                                                kj::mix64(spec.seed() + 1));
  KJ_CHECK(cudaGetLastError());
  return in;
}

inline output_t ref_kernel(const input_t& in) {
  output_t out = kj::Tensor<float>::empty(in.x.shape());
  const std::int64_t rows = in.x.size(0), cols = in.x.size(1);
  softmax_reference<<<static_cast<unsigned>((rows + 127) / 128), 128>>>(in.x.data(), out.data(),
                                                                        rows, cols);
  KJ_CHECK(cudaGetLastError());
  return out;
}

// Outputs lie in [0, 1]. A correct float kernel differs from the double reference by the
// rounding of x - max (2^-24 relative of |x - max| <= ~35: <= 2e-6 relative after exp), of expf
// (a few ulp; __expf stays near 5e-6 here) and of the float sum of the row's exponentials. That
// sum is the largest term: one sequential float accumulator over a row loses the many terms below
// half an ulp of the running sum, a bias that grows with the row length. Host simulation of this
// generator (every test and benchmark case, up to 200 rows each), worst |got - want| / (atol +
// rtol |want|) over all elements:
//   one float accumulator per row (the naive kernel), index order:  0.26 at 8192 columns,
//     0.16 at 4096, 0.03 at 1024, 0.32 at 16384, 0.84 at 32768 (the limit: keep cols <= 8192)
//   same in reverse order: 0.24 at 8192;  a single-pass online max/sum: 0.26 at 8192
//   the fast kernel's order (per-thread float4 online pairs, tree merge): <= 0.003 everywhere
// So rtol 1e-4 leaves a 4x margin for the worst plain float kernel at the widest row used (8192)
// and still fails any real mistake (a forgotten element, a wrong normalization); atol 1e-6 covers
// the tiny probabilities whose relative error is larger but whose absolute error is nil. A kernel
// that does not subtract the row maximum gets Inf or NaN on the rows shifted by more than ~70.
inline kj::Tolerance tolerance(const input_t&) { return {1e-6, 1e-4}; }
