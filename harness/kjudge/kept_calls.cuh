#pragma once
// The inputs and outputs of the last calls stay alive, so a call's buffers never sit at an
// address one of the recent calls used: a result cached by pointer misses, and one invocation's
// times average over many placements of its buffers in memory. With only the previous call's
// kept, allocations alternated between two addresses, and which two a process drew shifted its
// mean by up to 4 % against another process (softmax 4096², results/gpu-runs.md, 2026-11-23).
// The harness keeps its calls so, and so does an isolated run's worker (kjudge_worker.cu).
#include <cuda_runtime.h>

#include <cstddef>
#include <deque>

#include "arena.cuh"

namespace kj {

template <class Input, class Output>
class KeptCalls {
 public:
  static constexpr std::size_t kCalls = 16;

  // Frees the oldest kept calls: beyond kCalls - 1 (the call being made is the last one), or
  // while the GPU has less than a quarter of its memory free, so large tasks keep fewer.
  void trim() {
    while (!calls_.empty()) {
      std::size_t free_b = 0, total_b = 0;
      const bool low = cudaMemGetInfo(&free_b, &total_b) != cudaSuccess || free_b < total_b / 4 ||
                       Arena::get().used() > Arena::get().size() / 2;
      if (calls_.size() < kCalls && !low) break;
      calls_.pop_front();
    }
  }

  void keep(Input input, Output output) { calls_.push_back({std::move(input), std::move(output)}); }

 private:
  struct Call {
    Input input;
    Output output;
  };
  std::deque<Call> calls_;
};

}  // namespace kj
