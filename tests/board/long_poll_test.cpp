#include "board/long_poll.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace kjudge::board {
namespace {

using Clock = std::chrono::steady_clock;

// A submission this instance's judge just finished is answered at once (issue 35: the RL
// loop's latency), not at the next tick; without a wake the tick still answers it.
TEST(LongPolls, AWakeAnswersAFinishedSubmissionBeforeTheTick) {
  std::atomic<bool> done{false};
  std::atomic<int> answered{0};
  LongPolls polls(
      [&](const std::vector<std::int64_t>& ids) {
        return done ? ids : std::vector<std::int64_t>{};
      },
      [](std::function<void()> job) {
        job();
        return true;
      },
      16, std::chrono::milliseconds(3000));
  ASSERT_TRUE(polls.park(7, Clock::now() + std::chrono::seconds(60), [&] { ++answered; }));
  // Let the ticker reach its wait.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const auto t0 = Clock::now();
  done = true;
  polls.wake();
  while (answered == 0 && Clock::now() - t0 < std::chrono::seconds(10))
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(answered.load(), 1);
  EXPECT_LT(Clock::now() - t0, std::chrono::milliseconds(1500)) << "answered by the tick";
  EXPECT_EQ(polls.parked(), 0u);
}

}  // namespace
}  // namespace kjudge::board
