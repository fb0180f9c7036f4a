#pragma once
// Inclusive prefix sum of int32: out[i] = x[0] + ... + x[i]. Reference: a sequential scan on the
// host in int64 (obviously correct and independent of any GPU scan; ~0.2 s at 64M elements).
#include <climits>
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

inline output_t ref_kernel(const input_t& in) {
  std::vector<int> h = in.x.to_host();
  std::int64_t run = 0;
  for (int& v : h) {
    run += v;
    if (run > INT_MAX || run < INT_MIN) throw std::runtime_error("a prefix overflows int32");
    v = static_cast<int>(run);
  }
  output_t out = kj::Tensor<int>::empty(in.x.shape());
  out.copy_from_host(h);
  return out;
}

// Integer sums: exact.
inline kj::Tolerance tolerance(const input_t&) { return {0.0, 0.0}; }
