#pragma once
// Input generators: counter-based, so element i of a tensor filled with seed s is the same on
// any GPU, in any launch shape, and on the host (for a task's own checks); and fast, since a
// leaderboard run makes fresh inputs for every timed call.
#include <cstdint>

#include "seeds.h"
#include "tensor.cuh"

namespace kj {

// A uniform double in [0, 1) from 53 bits of the hash of (seed, i).
__host__ __device__ inline double uniform01(std::uint64_t seed, std::uint64_t i) {
  return static_cast<double>(mix64(mix64(seed) ^ i) >> 11) * (1.0 / 9007199254740992.0);
}

namespace detail {

template <class T>
__global__ void fill_uniform_kernel(T* out, std::int64_t n, std::uint64_t seed, double lo,
                                    double hi) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    out[i] = from_double<T>(lo + (hi - lo) * uniform01(seed, static_cast<std::uint64_t>(i)));
}

template <class T>
__global__ void fill_normal_kernel(T* out, std::int64_t n, std::uint64_t seed, double mean,
                                   double stddev) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    // Box-Muller on two independent uniforms of this element.
    const double u1 = 1.0 - uniform01(seed, 2 * static_cast<std::uint64_t>(i));
    const double u2 = uniform01(seed, 2 * static_cast<std::uint64_t>(i) + 1);
    const double z = sqrt(-2.0 * log(u1)) * cospi(2.0 * u2);
    out[i] = from_double<T>(mean + stddev * z);
  }
}

template <class T>
__global__ void fill_int_kernel(T* out, std::int64_t n, std::uint64_t seed, std::int64_t lo,
                                std::int64_t hi) {
  const std::uint64_t span = static_cast<std::uint64_t>(hi - lo) + 1;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    out[i] = static_cast<T>(
        lo + static_cast<std::int64_t>(mix64(mix64(seed) ^ static_cast<std::uint64_t>(i)) % span));
}

inline unsigned fill_blocks(std::int64_t n) {
  std::int64_t b = (n + 255) / 256;
  return static_cast<unsigned>(b < 1 ? 1 : (b > 65535 ? 65535 : b));
}

}  // namespace detail

// Uniform values in [lo, hi).
template <class T>
void fill_uniform(Tensor<T>& t, std::uint64_t seed, double lo = 0.0, double hi = 1.0) {
  if (t.numel() == 0) return;
  detail::fill_uniform_kernel<<<detail::fill_blocks(t.numel()), 256>>>(t.data(), t.numel(), seed,
                                                                       lo, hi);
  KJ_CHECK(cudaGetLastError());
}

// Normally distributed values.
template <class T>
void fill_normal(Tensor<T>& t, std::uint64_t seed, double mean = 0.0, double stddev = 1.0) {
  if (t.numel() == 0) return;
  detail::fill_normal_kernel<<<detail::fill_blocks(t.numel()), 256>>>(t.data(), t.numel(), seed,
                                                                      mean, stddev);
  KJ_CHECK(cudaGetLastError());
}

// Integers in [lo, hi], both ends included.
template <class T>
void fill_int(Tensor<T>& t, std::uint64_t seed, std::int64_t lo, std::int64_t hi) {
  if (t.numel() == 0) return;
  detail::fill_int_kernel<<<detail::fill_blocks(t.numel()), 256>>>(t.data(), t.numel(), seed, lo,
                                                                   hi);
  KJ_CHECK(cudaGetLastError());
}

}  // namespace kj
