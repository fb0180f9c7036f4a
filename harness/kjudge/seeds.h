#pragma once
// Seeds: how a case's public seed is combined with a secret one, and how a benchmark derives a
// fresh seed for each of its repetitions. Plain C++, shared by the harness and the judge.
#include <cstdint>

namespace kj {

// Cantor pairing, as GPU MODE's ranked runs do: a different secret gives different inputs for
// every public seed, and the public seeds reveal nothing about the secret. Wraps modulo 2^64.
inline std::uint64_t combine_seed(std::uint64_t public_seed, std::uint64_t secret) {
  const std::uint64_t s = public_seed + secret;
  // s (s + 1) / 2 without losing the halving to overflow: halve the even factor first.
  const std::uint64_t tri = (s % 2 == 0) ? (s / 2) * (s + 1) : s * ((s + 1) / 2);
  return public_seed + tri;
}

// splitmix64: a fast, well-mixed 64-bit hash; the base of the input generators.
#ifdef __CUDACC__
__host__ __device__
#endif
    inline std::uint64_t
    mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// The seed of repetition `rep` of a case seeded `seed`: repetition 0 is the case itself, every
// other one gets unrelated inputs, so no result can be reused from one call to the next.
inline std::uint64_t repetition_seed(std::uint64_t seed, std::uint64_t rep) {
  return rep == 0 ? seed : mix64(seed ^ mix64(rep));
}

}  // namespace kj
