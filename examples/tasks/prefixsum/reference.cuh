#pragma once
// Inclusive prefix sum of int32: out[i] = x[0] + ... + x[i]. Reference: a scan on the
// GPU in int64 with CUB (see ref_kernel).
#include <climits>
#include <cub/device/device_scan.cuh>
#include <stdexcept>
#include <vector>

#include "task.h"

// Values in [-100, 100]: a random walk, whose prefixes stay within a few times 58 sqrt(size)
// (~2e6 at 64M elements), far inside int32. ref_kernel checks it anyway.
inline input_t generate_input(const kj::Spec& spec) {
  const std::int64_t n = spec.get_int("size");
  if (n < 1) throw std::runtime_error("size must be at least 1");
  input_t in{kj::Tensor<int>::empty({n}), kj::Tensor<int>::empty({n})};
  kj::fill_int(in.x, kj::mix64(spec.seed() + 0), -100, 100);
  // Tensor::empty's 0xFF bytes read as -1 in int32, a value a prefix often has: an element the
  // submission forgets to write would pass. Fill with 0x80 bytes instead (-2139062144, which no
  // prefix reaches).
  KJ_CHECK(cudaMemset(in.out.data(), 0x80, in.out.bytes()));
  return in;
}

// The reference scans on the GPU with CUB in int64, then narrows to int32 and flags any prefix
// outside int32. It used to scan on the host, but every timed output is re-checked, and a host
// scan of 16M elements per call made a benchmark spend most of its minutes in the reference.
// CUB is independent of any submission's scan, and int64 leaves nothing to round or overflow.
__global__ void prefixsum_widen(const int* x, long long* wide, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x)
    wide[i] = x[i];
}

__global__ void prefixsum_narrow(const long long* wide, int* out, std::int64_t n, int* overflow) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    const long long v = wide[i];
    if (v > INT_MAX || v < INT_MIN) *overflow = 1;
    out[i] = static_cast<int>(v);
  }
}

inline output_t ref_kernel(const input_t& in) {
  const std::int64_t n = in.x.numel();
  output_t out = kj::Tensor<int>::empty(in.x.shape());
  auto wide = kj::Tensor<long long>::empty({n});
  auto sums = kj::Tensor<long long>::empty({n});
  auto overflow = kj::Tensor<int>::zeros({1});
  prefixsum_widen<<<1024, 256>>>(in.x.data(), wide.data(), n);
  std::size_t temp_bytes = 0;
  KJ_CHECK(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, wide.data(), sums.data(), n));
  auto temp = kj::Tensor<unsigned char>::empty({static_cast<std::int64_t>(temp_bytes)});
  KJ_CHECK(cub::DeviceScan::InclusiveSum(temp.data(), temp_bytes, wide.data(), sums.data(), n));
  prefixsum_narrow<<<1024, 256>>>(sums.data(), out.data(), n, overflow.data());
  KJ_CHECK(cudaGetLastError());
  if (overflow.to_host()[0] != 0) throw std::runtime_error("a prefix overflows int32");
  return out;
}

// Integer sums: exact.
inline kj::Tolerance tolerance(const input_t&) { return {0.0, 0.0}; }
