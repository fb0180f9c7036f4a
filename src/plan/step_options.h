#pragma once
// The options every command that runs solutions shares: the sandbox, bwrap and the memory
// limit, resolved into the StepSettings each step runs with (and refused with a clear message
// when the sandbox cannot work here). The options that fill StepArgs are cli/step_options.h's.
#include <cstddef>
#include <string>

#include "eval/step_runner.h"

namespace kjudge::plan {

struct StepArgs {
  std::string sandbox = "bwrap";
  std::string bwrap;
  std::string memory_limit = "8GiB";
};

struct ResolvedSteps {
  StepSettings settings;
  std::string mode;        // "bwrap" or "none", for reports
  std::string limits_how;  // how limits are enforced here (cgroup or rlimits)
};

// Throws Error (core/error.h) when the sandbox does not work here (exit code environment) or
// the memory limit is not a size (usage).
ResolvedSteps resolve_step_options(const StepArgs& a, std::size_t log_cap);

}  // namespace kjudge::plan
