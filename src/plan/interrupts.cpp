// Ctrl-C during a run (plan/interrupts.h).
#include "plan/interrupts.h"

#include <signal.h>

namespace kjudge::plan {
namespace {

std::atomic<Evaluator*> g_running{nullptr};
std::atomic<bool> g_stop{false};
std::atomic<GenerationSession*> g_session{nullptr};

extern "C" void on_interrupt(int) {
  g_stop.store(true);
  if (GenerationSession* s = g_session.load()) s->request_stop();
  if (Evaluator* e = g_running.load()) e->request_stop();
  // A second Ctrl-C ends the judge at once; the journal keeps what was finished.
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
}

}  // namespace

RunInterrupts run_interrupts() { return {&g_stop, &g_session, &g_running, on_interrupt}; }

InterruptScope::InterruptScope() {
  signal(SIGINT, on_interrupt);
  signal(SIGTERM, on_interrupt);
}

InterruptScope::~InterruptScope() {
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
}

}  // namespace kjudge::plan
