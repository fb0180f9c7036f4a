#include "eval/gpu_share.h"

#include <gtest/gtest.h>

namespace kjudge {
namespace {

using Clock = GpuShareClock::Clock;
Clock::time_point at(double s) {
  return Clock::time_point(
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1000.0 + s)));
}

TEST(GpuShareClock, ATestAloneOnItsGpuLosesNothing) {
  GpuShareClock c;
  c.enter(0, at(0));
  const double before = c.lost(0, at(0));
  EXPECT_DOUBLE_EQ(c.lost(0, at(10)) - before, 0.0);
  c.leave(0, at(10));
}

TEST(GpuShareClock, EachOfNTestsLosesAllButOneNthWhileTheyShare) {
  GpuShareClock c;
  c.enter(0, at(0));
  const double a0 = c.lost(0, at(0));
  c.enter(0, at(2));  // a second test for 4 s: the first loses half of them
  c.leave(0, at(6));
  EXPECT_DOUBLE_EQ(c.lost(0, at(10)) - a0, 2.0);
  c.enter(0, at(10));  // then three together for 3 s: two thirds of them
  c.enter(0, at(10));
  EXPECT_DOUBLE_EQ(c.lost(0, at(13)) - a0, 4.0);
}

TEST(GpuShareClock, GpusAreCountedApart) {
  GpuShareClock c;
  c.enter(0, at(0));
  c.enter(1, at(0));
  const double a0 = c.lost(0, at(0));
  EXPECT_DOUBLE_EQ(c.lost(0, at(5)) - a0, 0.0);
  c.enter(1, at(5));
  EXPECT_DOUBLE_EQ(c.lost(0, at(9)) - a0, 0.0);
  EXPECT_DOUBLE_EQ(c.lost(1, at(9)), 2.0);
}

}  // namespace
}  // namespace kjudge
