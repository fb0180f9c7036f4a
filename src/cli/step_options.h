#pragma once
// The options every command that runs solutions shares: the sandbox, bwrap and the memory
// limit, resolved into the StepSettings each step runs with (and refused with a clear message
// when the sandbox cannot work here).
#include <CLI/CLI.hpp>
#include <cstddef>
#include <optional>
#include <string>

#include "eval/step_runner.h"

namespace kjudge {

struct StepArgs {
  std::string sandbox = "bwrap";
  std::string bwrap;
  std::string memory_limit = "8GiB";
};

void add_step_options(CLI::App* c, StepArgs& a);

struct ResolvedSteps {
  StepSettings settings;
  std::string mode;        // "bwrap" or "none", for reports
  std::string limits_how;  // how limits are enforced here (cgroup or rlimits)
};

// Throws Error (core/error.h) when the sandbox does not work here (exit code environment) or
// the memory limit is not a size (usage).
ResolvedSteps resolve_step_options(const StepArgs& a, std::size_t log_cap);

// The form of before core/error.h, for the commands not converted yet (cmd_triton.cpp): nullopt
// after printing why as it always did, with *rc the exit code to return.
std::optional<ResolvedSteps> resolve_step_options(const StepArgs& a, std::size_t log_cap, int* rc);

}  // namespace kjudge
