#pragma once
// Ctrl-C and SIGTERM during a run: the first asks everything running to stop (the evaluator, a
// generation session, a Slurm submitter waiting on its arrays), so the run ends with what it
// finished journalled and a summary; a second ends kjudge at once.
#include <atomic>

#include "eval/evaluator.h"
#include "plan/generation_session.h"

namespace kjudge::plan {

// What the handler reaches. One run per process, so one set of them.
struct RunInterrupts {
  std::atomic<bool>* stop = nullptr;
  std::atomic<GenerationSession*>* session = nullptr;
  std::atomic<Evaluator*>* evaluator = nullptr;
  void (*handler)(int) = nullptr;
};

RunInterrupts run_interrupts();

// The handler on SIGINT and SIGTERM while `on` lives; the default ones again after.
class InterruptScope {
 public:
  InterruptScope();
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;
};

}  // namespace kjudge::plan
