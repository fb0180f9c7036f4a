// The GPU's shared and exclusive phases among a run's runner processes.
// Declared, and explained, in kernelbench/runner/gpu_gate.h.
#include "kernelbench/runner/gpu_gate.h"

#include "run/gpu_lock.h"

namespace kjudge::kernelbench {

GpuGate::GpuGate(int gpu, double shared_limit_s) : gpu_(gpu), shared_limit_s_(shared_limit_s) {}

GpuGate::~GpuGate() = default;

void GpuGate::revoke_overdue_locked() {
  const auto now = Clock::now();
  for (auto it = shared_.begin(); it != shared_.end();) {
    if (std::chrono::duration<double>(now - it->second).count() > shared_limit_s_) {
      revoked_[it->first] = true;
      it = shared_.erase(it);
    } else {
      ++it;
    }
  }
}

GpuGate::Ticket GpuGate::acquire_shared(const std::atomic<bool>* gave_up) {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (gave_up && *gave_up) return 0;
    if (exclusive_ == 0 && queue_.empty()) break;
    cv_.wait_for(lock, std::chrono::milliseconds(200));
  }
  const Ticket t = next_++;
  shared_[t] = Clock::now();
  return t;
}

GpuGate::Ticket GpuGate::acquire_exclusive(const std::atomic<bool>* gave_up) {
  std::unique_lock<std::mutex> lock(mu_);
  const Ticket t = next_++;
  queue_.push_back(t);
  for (;;) {
    if (gave_up && *gave_up) {
      queue_.remove(t);
      cv_.notify_all();  // the ones behind it may go now
      return 0;
    }
    if (queue_.front() == t && exclusive_ == 0) {
      revoke_overdue_locked();
      if (shared_.empty()) break;
    }
    cv_.wait_for(lock, std::chrono::milliseconds(200));
  }
  queue_.pop_front();
  exclusive_ = t;
  // The machine-wide lock: another kjudge timing on this GPU (a second run, a task benchmark)
  // would slow this one unseen. It is waited for here, outside the judge's own bookkeeping
  // (no waiter needs the mutex meanwhile: the exclusive place is taken).
  if (gpu_ >= 0) {
    lock.unlock();
    auto held = std::make_unique<GpuLock>(gpu_, 3600);
    lock.lock();
    lock_ = std::move(held);
  }
  return t;
}

void GpuGate::release(Ticket t) {
  std::unique_ptr<GpuLock> drop;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (t != 0 && t == exclusive_) {
      exclusive_ = 0;
      drop = std::move(lock_);
    } else {
      shared_.erase(t);
    }
  }
  cv_.notify_all();
}

bool GpuGate::revoked(Ticket t) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = revoked_.find(t);
  return it != revoked_.end() && it->second;
}

void GpuGate::poke() { cv_.notify_all(); }

int GpuGate::shared_holders() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(shared_.size());
}

bool GpuGate::exclusive_held() const {
  std::lock_guard<std::mutex> lock(mu_);
  return exclusive_ != 0;
}

}  // namespace kjudge::kernelbench
