#include "board/work_pool.h"

#include <algorithm>

namespace kjudge::board {

WorkPool::WorkPool(int threads, std::size_t max_queued) : max_queued_(max_queued) {
  for (int i = 0; i < std::max(1, threads); ++i) threads_.emplace_back([this] { work(); });
}

WorkPool::~WorkPool() { stop(); }

bool WorkPool::try_post(std::function<void()> job) {
  {
    std::lock_guard lock(m_);
    if (stopping_ || jobs_.size() >= max_queued_) return false;
    jobs_.push_back(std::move(job));
  }
  cv_.notify_one();
  return true;
}

void WorkPool::stop() {
  {
    std::lock_guard lock(m_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
}

void WorkPool::work() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(m_);
      cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    job();
  }
}

}  // namespace kjudge::board
