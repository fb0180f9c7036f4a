// Declared, and explained, in task/step_failure.h.
#include "task/step_failure.h"

namespace kjudge::task {

bool note_build_outcome(const ProcessResult& r, double timeout_s, TaskBuild& b) {
  if (!r.started) {
    b.failure = "judge: could not start the build: " + r.error;
    b.judge_fault = true;
  } else if (r.timed_out) {
    b.failure =
        "the build did not finish within " + std::to_string(static_cast<int>(timeout_s)) + " s";
  } else if (!r.limit_exceeded.empty()) {
    b.failure = "the build was stopped: it " + r.limit_exceeded;
  } else if (!r.ok()) {
    b.failure = "compile error";
  } else {
    return true;
  }
  return false;
}

std::optional<std::string> harness_step_failure(const ProcessResult& r, double timeout_s,
                                                const std::string& mode, const std::string& what,
                                                const std::string& crash_line) {
  if (!r.started) return "judge: could not start " + what + ": " + r.error;
  if (r.timed_out)
    return "timed out after " + std::to_string(static_cast<int>(timeout_s)) + " s (" + mode +
           " timeout of task.yml)";
  if (!r.limit_exceeded.empty()) return "stopped: it " + r.limit_exceeded;
  if (r.signal != 0) return "crashed (signal " + std::to_string(r.signal) + "): " + crash_line;
  return std::nullopt;
}

}  // namespace kjudge::task
