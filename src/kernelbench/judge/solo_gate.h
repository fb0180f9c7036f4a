#pragma once
// Runs that need the GPU's memory to themselves. The runner's GPU gate (runner/gpu_gate.h) gives
// a run its GPU phases alone, but the other runner processes keep their live tensors while they
// wait (level 1's inputs of several GB each, a level-3 model's weights): twelve of them can fill
// an H100 between them, and a run that ran out of memory beside them ran out again "alone". Its
// verdict was then its neighbours' doing. A solo run here starts only when no other run is in
// flight, and no run starts while one waits or runs: the memory is its own.
#include <condition_variable>
#include <mutex>

namespace kjudge::kernelbench {

class SoloGate {
 public:
  // Held for the length of one run: shared by ordinary runs, whole for a solo one.
  class Hold {
   public:
    Hold(SoloGate& gate, bool solo);
    ~Hold();
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;

   private:
    SoloGate& gate_;
    bool solo_;
  };

  int running() const;

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  int running_ = 0;       // ordinary runs in flight
  int solo_waiting_ = 0;  // solo runs waiting: new ordinary runs wait behind them
  bool solo_ = false;     // a solo run in flight
};

}  // namespace kjudge::kernelbench
