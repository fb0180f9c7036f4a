#pragma once
// The Triton judge's queue of test-mode runs (triton/judge/eval.h): the runs of every operator on a
// few worker threads, with a run queued while others run (an operator's second reference run)
// put in front. Internal to the judge (eval.cpp).
#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <vector>

namespace kjudge::triton {

// Test-mode runs on up to `workers` threads, in the order queued. A task may queue more while
// the queue runs (an operator's second reference run, once its first batch has ended): in front,
// so that what was begun ends, and is written, before more is started.
class RunQueue {
 public:
  explicit RunQueue(int workers) : workers_(std::max(1, workers)) {}

  void push_back(std::function<void()> task) { push(std::move(task), false); }
  void push_front(std::function<void()> task) { push(std::move(task), true); }

  // Runs every task, those queued meanwhile included, and returns when all have ended. The
  // first exception a task throws is rethrown here, once the tasks in flight have ended; no
  // task starts after it.
  void run();

 private:
  void push(std::function<void()> task, bool front);

  void work();

  int workers_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  std::size_t running_ = 0;
  std::exception_ptr error_;
};

}  // namespace kjudge::triton
