#include "eval/schedule.h"

#include <gtest/gtest.h>

namespace kjudge {
namespace {

TEST(Schedule, CheapBuildsFirstLongestTestFirstThenLongestBuildsFirst) {
  std::vector<JobCost> c = {
      {25, 0.4},  // 0: expensive build
      {4, 0.4},   // 1: cheap
      {4, 50},    // 2: cheap build, long test: must start first
      {34, 0.5},  // 3: the most expensive build
      {4, 1.0},   // 4: cheap
  };
  auto order = plan_order(c);
  EXPECT_EQ(order, (std::vector<std::size_t>{2, 4, 1, 3, 0}));
}

TEST(Schedule, StableOnTiesAndEmptyInput) {
  EXPECT_TRUE(plan_order({}).empty());
  std::vector<JobCost> same(5, JobCost{4, 1});
  EXPECT_EQ(plan_order(same), (std::vector<std::size_t>{0, 1, 2, 3, 4}));
}

}  // namespace
}  // namespace kjudge
