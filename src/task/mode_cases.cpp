// Declared, and explained, in task/mode_cases.h.
#include "task/mode_cases.h"

namespace kjudge::task {

std::optional<std::vector<TaskCase>> mode_cases(const TaskSpec& task, const std::string& mode,
                                                int profile_case, std::string& failure) {
  std::vector<TaskCase> cases = mode == "test" ? task.tests : task.benchmarks;
  if (mode == "profile" && !cases.empty()) {
    const std::size_t i =
        profile_case < 0 ? cases.size() - 1 : static_cast<std::size_t>(profile_case);
    if (i >= cases.size()) {
      failure = "there is no benchmark " + std::to_string(profile_case) + " to profile";
      return std::nullopt;
    }
    cases = {cases[i]};
  }
  if (cases.empty()) {
    failure = "the task has no " + std::string(mode == "test" ? "tests" : "benchmarks");
    return std::nullopt;
  }
  return cases;
}

}  // namespace kjudge::task
