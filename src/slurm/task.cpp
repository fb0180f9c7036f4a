// The array task's filter on what it journals while Slurm may be cancelling it (task.h).
#include "slurm/task.h"

#include <csignal>
#include <string>
#include <thread>

namespace kjudge::slurm {

namespace {

// Slurm's SIGTERM, as the step reports it: killed by it, or a sandbox that passed it on
// (128 + 15).
bool by_sigterm(const StepRecord& s) { return s.signal == SIGTERM || s.exit_code == 128 + SIGTERM; }

bool not_stopping(bool suspect, const std::atomic<bool>& stop) {
  for (int i = 0; suspect && i < 20 && !stop.load(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  return !stop.load();
}

}  // namespace

bool keep_shard_result(const GradedSolution& g, const std::atomic<bool>& stop) {
  return not_stopping(by_sigterm(g.build) || by_sigterm(g.test), stop);
}

bool keep_shard_timing(const nlohmann::json& line, const std::atomic<bool>& stop) {
  // The benchmark stage says how a run failed in words: "… (signal 15): …", "… (exit 143): …".
  const std::string why = line.value("not_timed", std::string());
  const bool suspect =
      why.find("(signal " + std::to_string(SIGTERM) + ")") != std::string::npos ||
      why.find("(exit " + std::to_string(128 + SIGTERM) + ")") != std::string::npos;
  return not_stopping(suspect, stop);
}

}  // namespace kjudge::slurm
