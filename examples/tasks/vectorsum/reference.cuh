#pragma once
// The sum of a float32 vector, into a 1-element float32 tensor: a reduction whose tolerance has
// to depend on the input. Reference: per-block partial sums in double, added up on the host.
#include <cmath>
#include <stdexcept>
#include <vector>

#include "task.h"

constexpr int kVectorsumBlocks = 1024, kVectorsumThreads = 256;

// Per-block sums of x and of x^2, in double.
__global__ void vectorsum_partials(const float* x, std::int64_t n, double* sums, double* squares) {
  __shared__ double s1[kVectorsumThreads], s2[kVectorsumThreads];
  double a = 0, b = 0;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const double v = x[i];
    a += v;
    b += v * v;
  }
  s1[threadIdx.x] = a;
  s2[threadIdx.x] = b;
  __syncthreads();
  for (int h = kVectorsumThreads / 2; h > 0; h /= 2) {
    if (static_cast<int>(threadIdx.x) < h) {
      s1[threadIdx.x] += s1[threadIdx.x + h];
      s2[threadIdx.x] += s2[threadIdx.x + h];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    sums[blockIdx.x] = s1[0];
    squares[blockIdx.x] = s2[0];
  }
}

struct VectorsumMoments {
  double sum = 0, sumsq = 0;
};

inline VectorsumMoments vectorsum_moments(const kj::Tensor<float>& x) {
  auto part = kj::Tensor<double>::empty({2, kVectorsumBlocks});
  vectorsum_partials<<<kVectorsumBlocks, kVectorsumThreads>>>(x.data(), x.numel(), part.data(),
                                                              part.data() + kVectorsumBlocks);
  KJ_CHECK(cudaGetLastError());
  const std::vector<double> h = part.to_host();
  VectorsumMoments m;
  for (int i = 0; i < kVectorsumBlocks; ++i) {
    m.sum += h[i];
    m.sumsq += h[kVectorsumBlocks + i];
  }
  return m;
}

// Values uniform in [-1, 1): the sum (~ sqrt(n / 3)) is tiny next to sum |x| (~ n / 2).
inline input_t generate_input(const kj::Spec& spec) {
  const std::int64_t n = spec.get_int("size");
  if (n < 1) throw std::runtime_error("size must be at least 1");
  input_t in{kj::Tensor<float>::empty({n}), kj::Tensor<float>::empty({1})};
  kj::fill_uniform(in.x, kj::mix64(spec.seed() + 0), -1.0, 1.0);
  return in;
}

inline output_t ref_kernel(const input_t& in) {
  output_t out = kj::Tensor<float>::empty({1});
  out.copy_from_host({static_cast<float>(vectorsum_moments(in.x).sum)});
  return out;
}

// The tolerance: atol = 8 * 2^-24 * sqrt(n * sum x_i^2), rtol = 0.
//
// Why: a float32 sum in any order errs by up to 2^-24 of each partial sum it forms. For values
// of random sign the partial sums are random walks, |partial of j terms| ~ sqrt(j) * rms(x), and
// the rounding errors add up like a random walk too: one sequential accumulator (the worst
// usual order: an atomicAdd per element is one, in a random order) errs by about
// 2^-24 * rms(x) * n / sqrt(6) = 2^-24 * sqrt(n * sum x^2) / sqrt(6); tree and blocked orders much
// less. The factor 8 puts atol ~20 standard deviations above that. The textbook worst-case bound
// n * eps * sum|x| (3e4 at n = 1M) and even eps * log2(n) * sum|x| would let through a kernel
// that sums only 99 % of the elements and rescales by 1 / 0.99: it misses ~ sqrt(n / 100) *
// 0.58 (58 at n = 1M, 470 at 64M), which is 100-1000 times this atol. A fixed rtol on the
// result fails correct kernels when the sum happens to be near 0; rtol is 0.
//
// Host simulation (this generator, every test and benchmark case with its own seed), worst
// |got - want| / atol of float32 orders: sequential 0.078, random permutation then sequential
// 0.040, pairwise 0.007, blocks of 1024 added with atomics in random block order 0.031, the fast
// submission's order (1056 or 912 blocks x 256 threads, float4 partials, shuffle trees, atomics
// in random block order) 0.004. The 99 % cheat (submissions/cheat-partial.cu) is 22 to 2e6 times
// atol, failing every case (size 1 and 100 included). Over fresh seeds (a ranked run's
// repetitions): the worst correct order reached 0.25 (2000 seeds at n = 100, 300 at 1M, 40 at 16M,
// 10 at 64M); the cheat passed 1 case in 300 at 1M and 1 in 40 at 16M (its error ~ N(0, 58^2) at
// 1M against atol 0.29), so it still fails every run of several cases.
inline kj::Tolerance tolerance(const input_t& in) {
  const double n = static_cast<double>(in.x.numel());
  return {8.0 * std::ldexp(1.0, -24) * std::sqrt(n * vectorsum_moments(in.x).sumsq), 0.0};
}
