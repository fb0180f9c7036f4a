// The Triton judge's queue of test-mode runs. Declared, and explained, in
// triton/judge/eval_queue.h.
#include "triton/judge/eval_queue.h"

#include <algorithm>
#include <thread>
#include <utility>

namespace kjudge::triton {

void RunQueue::run() {
  std::size_t threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    threads = std::min<std::size_t>(static_cast<std::size_t>(workers_), tasks_.size());
  }
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < threads; ++t) pool.emplace_back([this] { work(); });
  for (auto& t : pool) t.join();
  if (error_) std::rethrow_exception(error_);
}

void RunQueue::push(std::function<void()> task, bool front) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (front)
      tasks_.push_front(std::move(task));
    else
      tasks_.push_back(std::move(task));
  }
  cv_.notify_one();
}

void RunQueue::work() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      // Idle while others run: one of them may queue more.
      cv_.wait(lock, [&] { return error_ || !tasks_.empty() || running_ == 0; });
      if (error_ || tasks_.empty()) break;
      task = std::move(tasks_.front());
      tasks_.pop_front();
      ++running_;
    }
    try {
      task();
    } catch (...) {
      std::lock_guard<std::mutex> lock(mu_);
      if (!error_) error_ = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      --running_;
    }
    cv_.notify_all();
  }
  cv_.notify_all();
}

}  // namespace kjudge::triton
