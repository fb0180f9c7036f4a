#pragma once
// How much GPU time each test lost to the other tests on its GPU (issue 35). Tests share a GPU
// (EvalOptions::tests_per_gpu), which time-slices between their contexts: while N of them run,
// each gets about 1/N of it. The clock integrates 1 - 1/N over time per GPU, so what a test lost
// is the clock's advance over its run. It counts a neighbour as busy on the GPU for its whole
// run, which errs towards the test (more time lost, more grace, never a verdict it did not earn).
#include <chrono>
#include <map>
#include <mutex>

namespace kjudge {

class GpuShareClock {
 public:
  using Clock = std::chrono::steady_clock;

  // A test starts or ends on `gpu`; thread-safe.
  void enter(int gpu, Clock::time_point now = Clock::now());
  void leave(int gpu, Clock::time_point now = Clock::now());
  // Seconds of GPU time lost so far by whoever ran on `gpu` all along (a test's loss is the
  // difference between two readings).
  double lost(int gpu, Clock::time_point now = Clock::now());

 private:
  struct Gpu {
    int running = 0;
    double lost_s = 0;
    Clock::time_point last{};
  };
  void advance(Gpu& g, Clock::time_point now);

  std::mutex mu_;
  std::map<int, Gpu> gpus_;
};

}  // namespace kjudge
