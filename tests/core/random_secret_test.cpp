#include "core/random_secret.h"

#include <gtest/gtest.h>

#include <set>

namespace kjudge {
namespace {

// Equal draws are possible but, at 2^-32 and 2^-64 per pair, a test that sees them has found a
// generator that repeats itself.
TEST(RandomSecret, DrawsDiffer) {
  std::set<std::uint32_t> small;
  std::set<std::uint64_t> large;
  for (int i = 0; i < 64; ++i) {
    small.insert(random_u32());
    large.insert(random_u64());
  }
  EXPECT_GE(small.size(), 63u);
  EXPECT_EQ(large.size(), 64u);
}

TEST(RandomSecret, U64FillsBothHalves) {
  // Each half comes from its own 32-bit draw; one left at zero 64 times means it was never drawn.
  bool high = false, low = false;
  for (int i = 0; i < 64 && !(high && low); ++i) {
    const std::uint64_t v = random_u64();
    high |= (v >> 32) != 0;
    low |= (v & 0xffffffffu) != 0;
  }
  EXPECT_TRUE(high);
  EXPECT_TRUE(low);
}

}  // namespace
}  // namespace kjudge
