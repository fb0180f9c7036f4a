#pragma once
// Parked long polls (`GET /api/v1/submissions/ID?wait=S`): a waiting client holds an entry here,
// not a thread. One ticker thread rechecks every parked id in one query each `period`, and hands
// each finished (or timed-out) waiter's answer to the handlers' pool. Polling the database
// rather than hooking the judge also sees submissions that another instance (or a Slurm worker)
// finishes; this instance's own judge wakes the ticker as soon as it finishes one (wake()), so
// an RL loop waiting on its verdict does not wait for the next tick too (issue 35: with the
// tick alone, a 15 ms judgement answered after 100 ms).
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace kjudge::board {

class LongPolls {
 public:
  using Clock = std::chrono::steady_clock;
  // finished(ids): those of ids that finished. post(job): runs job on the handlers' pool, false
  // when it is full (the waiter then stays parked until the next tick).
  LongPolls(std::function<std::vector<std::int64_t>(const std::vector<std::int64_t>&)> finished,
            std::function<bool(std::function<void()>)> post, std::size_t max_parked,
            std::chrono::milliseconds period = std::chrono::milliseconds(100));
  ~LongPolls();
  LongPolls(const LongPolls&) = delete;
  LongPolls& operator=(const LongPolls&) = delete;

  // `answer` runs once, on the pool, when submission `id` finishes or at `deadline`. False when
  // max_parked waiters are parked already (the caller answers 503).
  // `gone`, when given, says the client left: its waiter is then dropped unanswered.
  bool park(std::int64_t id, Clock::time_point deadline, std::function<void()> answer,
            std::function<bool()> gone = nullptr);
  std::size_t parked() const;
  // Rechecks the parked ids now rather than at the next tick (a submission just finished).
  void wake();
  // Answers nobody more; the waiters are dropped (their connections close).
  void stop();

 private:
  struct Waiter {
    std::int64_t id;
    Clock::time_point deadline;
    std::function<void()> answer;
    std::function<bool()> gone;
  };
  void tick();
  std::function<std::vector<std::int64_t>(const std::vector<std::int64_t>&)> finished_;
  std::function<bool(std::function<void()>)> post_;
  std::size_t max_parked_;
  std::chrono::milliseconds period_;
  mutable std::mutex m_;
  std::condition_variable cv_;
  std::multimap<std::int64_t, Waiter> waiters_;  // by submission id
  bool stopping_ = false;
  bool woken_ = false;
  std::thread thread_;
};

}  // namespace kjudge::board
