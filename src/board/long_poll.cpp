#include "board/long_poll.h"

#include <cstdio>
#include <set>

namespace kjudge::board {

LongPolls::LongPolls(
    std::function<std::vector<std::int64_t>(const std::vector<std::int64_t>&)> finished,
    std::function<bool(std::function<void()>)> post, std::size_t max_parked,
    std::chrono::milliseconds period)
    : finished_(std::move(finished)),
      post_(std::move(post)),
      max_parked_(max_parked),
      period_(period),
      thread_([this] { tick(); }) {}

LongPolls::~LongPolls() { stop(); }

bool LongPolls::park(std::int64_t id, Clock::time_point deadline, std::function<void()> answer,
                     std::function<bool()> gone) {
  std::lock_guard lock(m_);
  if (stopping_ || waiters_.size() >= max_parked_) return false;
  waiters_.emplace(id, Waiter{id, deadline, std::move(answer), std::move(gone)});
  return true;
}

std::size_t LongPolls::parked() const {
  std::lock_guard lock(m_);
  return waiters_.size();
}

void LongPolls::wake() {
  {
    std::lock_guard lock(m_);
    woken_ = true;
  }
  cv_.notify_all();
}

void LongPolls::stop() {
  {
    std::lock_guard lock(m_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard lock(m_);
  waiters_.clear();
}

void LongPolls::tick() {
  std::unique_lock lock(m_);
  for (;;) {
    cv_.wait_for(lock, period_, [this] { return stopping_ || woken_; });
    if (stopping_) return;
    woken_ = false;
    if (waiters_.empty()) continue;
    std::vector<std::int64_t> ids;
    for (auto it = waiters_.begin(); it != waiters_.end(); it = waiters_.upper_bound(it->first))
      ids.push_back(it->first);
    lock.unlock();
    std::set<std::int64_t> done;
    try {
      for (auto id : finished_(ids)) done.insert(id);
    } catch (const std::exception& e) {
      // The database is away: the waiters time out as usual, or are answered next tick.
      std::fprintf(stderr, "kjudge serve: long polls: %s\n", e.what());
    }
    lock.lock();
    const auto now = Clock::now();
    for (auto it = waiters_.begin(); it != waiters_.end();) {
      if (it->second.gone && it->second.gone())
        it = waiters_.erase(it);  // nobody to answer: its connection (and slot) is let go
      else if ((done.count(it->first) || now >= it->second.deadline) && post_(it->second.answer))
        it = waiters_.erase(it);
      else
        ++it;
    }
  }
}

}  // namespace kjudge::board
