#include "core/random_secret.h"

#include <random>

namespace kjudge {

std::uint32_t random_u32() {
  std::random_device rd;
  return static_cast<std::uint32_t>(rd());
}

std::uint64_t random_u64() {
  std::random_device rd;
  const std::uint64_t high = static_cast<std::uint32_t>(rd());
  const std::uint64_t low = static_cast<std::uint32_t>(rd());
  return (high << 32) | low;
}

}  // namespace kjudge
