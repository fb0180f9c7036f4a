#pragma once
// Who may use the GPU when, among the runner processes of one `kjudge kernelbench eval`. A
// runner asks before each phase that touches the GPU (kernelbench/runner/control.h):
//   - shared: the reference's outputs, the correctness trials, torch.compile's warm-up. Any
//     number of processes at once;
//   - exclusive: the timed calls. One process, and no shared holder: the GPU is the timed
//     process's alone (and, through run/gpu_lock.h, no other kjudge's timed run's either).
// Between its phases a runner holds nothing (importing torch, building ModelNew's extension,
// constructing the models on the host): a compile of a minute never keeps another process from
// being timed. An exclusive request waits for the shared holders to finish their phase, and
// no new shared phase starts while one waits (writer preference: timing is never starved).
//
// A shared phase that outlasts `shared_limit_s` while an exclusive request waits is revoked: the
// waiter goes ahead, the holder (whose phase is over its time limit anyway, and which ends as a
// timeout) is no longer counted. The process itself cannot be stopped from here;
// docs/kernelbench.md says what that leaves.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

namespace kjudge {
class GpuLock;
}

namespace kjudge::kernelbench {

class GpuGate {
 public:
  // `gpu` >= 0: an exclusive phase also holds that GPU's machine-wide lock (run/gpu_lock.h).
  explicit GpuGate(int gpu = -1, double shared_limit_s = 600);
  ~GpuGate();
  GpuGate(const GpuGate&) = delete;
  GpuGate& operator=(const GpuGate&) = delete;

  // A holder's ticket; 0 is none.
  using Ticket = std::uint64_t;

  // Blocks until the phase may start. `gave_up`, when set and true, ends the wait (the process
  // went away): 0 is returned.
  Ticket acquire_shared(const std::atomic<bool>* gave_up = nullptr);
  Ticket acquire_exclusive(const std::atomic<bool>* gave_up = nullptr);
  // Ends a phase (a revoked or unknown ticket is ignored). Wakes the waiters.
  void release(Ticket t);
  // Whether the ticket was revoked (its shared phase outlasted the limit while others waited).
  bool revoked(Ticket t) const;

  // Wakes every waiter to look at its gave_up flag again.
  void poke();

  // For reports and tests: holders now.
  int shared_holders() const;
  bool exclusive_held() const;

 private:
  using Clock = std::chrono::steady_clock;
  void revoke_overdue_locked();

  mutable std::mutex mu_;
  std::condition_variable cv_;
  int gpu_;
  double shared_limit_s_;
  Ticket next_ = 1;
  std::map<Ticket, Clock::time_point> shared_;  // holder -> since
  std::map<Ticket, bool> revoked_;
  Ticket exclusive_ = 0;
  std::list<Ticket> queue_;  // exclusive requests waiting, first come first
  std::unique_ptr<GpuLock> lock_;
};

}  // namespace kjudge::kernelbench
