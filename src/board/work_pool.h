#pragma once
// A fixed set of threads taking jobs from a bounded queue. The service's handlers run here
// because the database calls block; the network thread never waits on them. A full queue
// refuses the job (the caller answers 503) instead of letting the backlog grow without end.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace kjudge::board {

class WorkPool {
 public:
  WorkPool(int threads, std::size_t max_queued);
  ~WorkPool();
  WorkPool(const WorkPool&) = delete;
  WorkPool& operator=(const WorkPool&) = delete;
  // False (and `job` dropped) when max_queued jobs already wait, or the pool is stopping.
  bool try_post(std::function<void()> job);
  // Runs what is queued, then joins the threads.
  void stop();

 private:
  void work();
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  std::size_t max_queued_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace kjudge::board
