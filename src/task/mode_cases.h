#pragma once
// The cases one mode runs, for kjudge's harness and the task's own alike: the tests in test mode,
// the benchmarks otherwise, and in profile mode one benchmark (the last, or the one asked for).
#include <optional>
#include <string>
#include <vector>

#include "core/task_spec.h"

namespace kjudge::task {

// Nothing, with `failure` saying why, when the mode has no case to run.
std::optional<std::vector<TaskCase>> mode_cases(const TaskSpec& task, const std::string& mode,
                                                int profile_case, std::string& failure);

}  // namespace kjudge::task
