#pragma once
// Runs one step of a solution (build, test or benchmark) in its workspace: in the sandbox with
// the clean environment every step gets, or, with the sandbox off, as a plain process with the
// judge's environment. The evaluator and the benchmarker share it, so a timed run sees exactly
// what a test run sees.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "run/machine.h"
#include "run/process.h"

namespace kjudge {

struct StepSettings {
  bool sandbox = false;
  std::filesystem::path bwrap = "bwrap";
  std::uint64_t memory_limit_bytes = 8ull << 30;
  std::size_t log_cap = 16 * 1024;
};

// What one kind of step adds to every step's setup.
struct StepExtras {
  std::vector<std::string> env;                 // KEY=VALUE, added (or overriding)
  std::vector<std::filesystem::path> ro_paths;  // host files visible read-only in the sandbox
  std::vector<int> inherit_fds;                 // descriptors the step keeps
  // When set, run this argv directly instead of `sh -c command` (the command then only names
  // the step in logs): a preloaded library then loads into the program alone, not the shell.
  std::vector<std::string> argv;
};

ProcessResult run_step(const StepSettings& settings, const MachineInfo& machine,
                       const std::string& command, const std::filesystem::path& workspace,
                       double timeout_s, const StepExtras& extras = {});

}  // namespace kjudge
