#include "perf/interleave.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace kjudge {
namespace {

// "B" baseline, "S" solution, lower case for warm-ups.
std::string letters(const std::vector<PlannedRun>& plan) {
  std::string out;
  for (const PlannedRun& r : plan) {
    char c = r.who == 0 ? 'B' : 'S';
    out += r.warmup ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return out;
}

TEST(InterleavePlan, WarmupsFirstThenAlternatingPairs) {
  EXPECT_EQ(letters(interleave_plan(1, 0)), "BS");
  EXPECT_EQ(letters(interleave_plan(4, 0)), "BSSBBSSB");
  EXPECT_EQ(letters(interleave_plan(3, 1)), "bsBSSBBS");
  // Each phase restarts baseline-first, so the timed runs are laid out the same whatever the
  // number of warm-ups.
  EXPECT_EQ(letters(interleave_plan(2, 3)), "bssbbsBSSB");
}

TEST(InterleavePlan, CountsAndIndices) {
  for (int runs : {1, 2, 5, 10}) {
    for (int warmups : {0, 1, 2, 3}) {
      std::vector<PlannedRun> plan = interleave_plan(runs, warmups);
      ASSERT_EQ(plan.size(), static_cast<std::size_t>(2 * (runs + warmups)));
      int next[2][2] = {{0, 0}, {0, 0}};  // [warmup][who]
      for (std::size_t i = 0; i < plan.size(); ++i) {
        const PlannedRun& r = plan[i];
        ASSERT_TRUE(r.who == 0 || r.who == 1);
        EXPECT_EQ(r.warmup, i < static_cast<std::size_t>(2 * warmups)) << "warm-ups come first";
        EXPECT_EQ(r.index, next[r.warmup][r.who]++) << "indices count up within a side and kind";
      }
      EXPECT_EQ(next[1][0], warmups);
      EXPECT_EQ(next[1][1], warmups);
      EXPECT_EQ(next[0][0], runs);
      EXPECT_EQ(next[0][1], runs);
    }
  }
}

TEST(InterleavePlan, EachPairHoldsBothSides) {
  std::vector<PlannedRun> plan = interleave_plan(7, 2);
  for (std::size_t i = 0; i < plan.size(); i += 2) {
    EXPECT_NE(plan[i].who, plan[i + 1].who);
    EXPECT_EQ(plan[i].index, plan[i + 1].index);
    // Orders alternate: pair k of a phase starts with the baseline when k is even.
    const int k = plan[i].index;
    EXPECT_EQ(plan[i].who, k % 2) << "pair " << i / 2;
  }
}

// A speed that drifts linearly with time adds the same total to both sides when the sums of
// their timed positions are equal.
TEST(InterleavePlan, BalancedAgainstLinearDrift) {
  for (int runs : {2, 4, 6, 10, 50}) {
    for (int warmups : {0, 1, 3}) {
      long sum[2] = {0, 0};
      std::vector<PlannedRun> plan = interleave_plan(runs, warmups);
      for (std::size_t pos = 0; pos < plan.size(); ++pos) {
        if (!plan[pos].warmup) sum[plan[pos].who] += static_cast<long>(pos);
      }
      EXPECT_EQ(sum[0], sum[1]) << "runs=" << runs << " warmups=" << warmups;
    }
  }
  // With an odd number of pairs one side is one position ahead.
  long sum[2] = {0, 0};
  std::vector<PlannedRun> plan = interleave_plan(5, 0);
  for (std::size_t pos = 0; pos < plan.size(); ++pos) sum[plan[pos].who] += static_cast<long>(pos);
  EXPECT_EQ(sum[1] - sum[0], 1);
}

TEST(InterleavePlan, RejectsImpossibleCounts) {
  EXPECT_THROW(interleave_plan(0, 0), std::invalid_argument);
  EXPECT_THROW(interleave_plan(-1, 2), std::invalid_argument);
  EXPECT_THROW(interleave_plan(3, -1), std::invalid_argument);
}

}  // namespace
}  // namespace kjudge
