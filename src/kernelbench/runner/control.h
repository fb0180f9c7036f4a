#pragma once
// The judge's end of a KernelBench runner's control channel: a socket pair, the runner keeping
// one end, and a thread answering it while the run goes on. Over it the runner asks for each GPU
// phase (kernelbench/runner/gpu_gate.h), receives the key of each timed pair's inputs in its
// turn, and commits what each pair measured as the pair ends, on the judge's clock. The protocol
// (docs/kernelbench.md, "The runner protocol"), one line each way, runner first:
//   gpu              -> go          a shared phase (the GPU among others)
//   idle             -> ok          the shared phase is over
//   solo             -> go          a shared phase taken alone (a run retried because it ran out
//                                    of GPU memory beside others), ended by `end`
//   time             -> go | skip   the exclusive phase (skip: the judge times no more)
//   pair K           -> k HEX       the key of timed pair K's inputs (pairs 0, 1, ... in order)
//   done K S R C s r c OK -> a K    pair K measured: per side (solution, reference, compiled
//                                    reference; "-" without one) the time to its stream's end,
//                                    then to the device's end, in ms; OK 1 when the solution's
//                                    output matched the reference's on the pair's inputs
//   end              -> ok          the exclusive phase is over
// A message out of turn or malformed (what a solution forging on the runner's descriptor
// writes) is answered `refused` and ends the service: the run is refused. The keys come from a
// secret the runner never holds, so no pair's inputs exist before the judge sends their key;
// the commitments bound what the report may say after the fact, and the judge's clock bounds
// the times themselves (a pair cannot have taken the GPU longer than the judge waited for it).
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kernelbench/runner/gpu_gate.h"

namespace kjudge::kernelbench {

// CLOCK_REALTIME in nanoseconds: the clock of the control channel's events and of the runner's
// marks (a clock both processes read alike).
std::int64_t realtime_ns();

struct ControlEvent {
  enum class Kind { hello, gpu, solo, idle, time, pair, done, end };
  Kind kind = Kind::gpu;
  std::int64_t at_ns = 0;      // CLOCK_REALTIME when the judge read it
  std::int64_t answer_ns = 0;  // when the judge answered it (after the gate let it go)
  std::size_t pair = 0;
  // done: stream end and device end, per side; NaN where the side was not timed.
  double sol_ms = NAN, ref_ms = NAN, cmp_ms = NAN;
  double sol_dev_ms = NAN, ref_dev_ms = NAN, cmp_dev_ms = NAN;
  bool ok = false;
  std::string answer;  // what the judge answered ("go", "skip", "k <hex>", ...)
};

struct ControlLog {
  bool served = false;
  std::int64_t spawn_ns = 0;
  std::vector<ControlEvent> events;
  std::string violation;  // non-empty: the run is refused
  double waited_s = 0;    // waiting for the gate (not the runner's own time)
  bool revoked = false;   // a shared phase was revoked (it outlasted the gate's limit)
  bool timed = false;     // an exclusive phase was granted
  // The runner's own time ran out (its waits for the GPU not counted): the judge killed it.
  bool killed = false;
};

// The key of timed pair `pair` (32 hex digits from the job's secret).
std::string pair_key(std::uint64_t secret, std::size_t pair);

class ControlServer {
 public:
  // `allow_time`: the judge times this run (else `time` is answered skip). `limit_s` > 0: the
  // runner's own time (from start() on, its waits for the gate not counted) after which the
  // process that said hello is killed. Throws std::runtime_error when no socket pair can be
  // made.
  ControlServer(GpuGate& gate, std::uint64_t secret, bool allow_time, double limit_s = 0);
  ~ControlServer();
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;

  int child_fd() const { return child_; }
  void start(std::int64_t spawn_ns);
  // Once the runner has ended: every phase it held is released, and the log handed back.
  ControlLog stop();

 private:
  void serve();
  void watch();  // the time limit
  void send_line(const std::string& line);
  // The reply to one message; a non-empty return is the violation.
  std::string handle(const std::string& line, std::int64_t now, std::string& reply);

  GpuGate& gate_;
  std::uint64_t secret_;
  bool allow_time_;
  double limit_s_;
  int judge_ = -1, child_ = -1;
  int pidfd_ = -1;  // the process that said hello
  std::thread thread_, watchdog_;
  std::mutex mu_;  // pidfd_ and the clocks below, between the two threads
  std::condition_variable cv_;
  std::int64_t waited_ns_ = 0, waiting_since_ns_ = 0;
  std::atomic<bool> stopping_{false};
  ControlLog log_;
  enum class State { idle, shared, exclusive, solo };
  State state_ = State::idle;
  GpuGate::Ticket ticket_ = 0;
  std::size_t next_pair_ = 0;
  bool keyed_ = false;  // pair next_pair_ has its key, not yet its done
};

}  // namespace kjudge::kernelbench
