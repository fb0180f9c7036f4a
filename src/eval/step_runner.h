#pragma once
// Runs one step of a solution (build, test or benchmark) in its workspace: in the sandbox with
// the clean environment every step gets, or, with the sandbox off, as a plain process with the
// judge's environment. The evaluator and the benchmarker share it, so a timed run sees exactly
// what a test run sees.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "run/machine.h"
#include "run/main_return.h"
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
  // Libraries preloaded into the step's program (LD_PRELOAD, in this order). In the sandbox each
  // is bound read-only at preload_path(), so the step sees no host path of the judge's.
  std::vector<std::filesystem::path> preload;
  // When set, run this argv directly instead of `sh -c command` (the command then only names
  // the step in logs): a preloaded library then loads into the program alone, not the shell.
  std::vector<std::string> argv;
};

// Where a step sees `library` of StepExtras::preload: the host path, or in the sandbox
// /.kjudge/preload/<its file name>.
std::filesystem::path preload_path(const StepSettings& settings,
                                   const std::filesystem::path& library);

// Preloads the main guard (run/main_return.h) into a step whose command is `words` (from
// simple_command_words) when its program is the workspace's own dynamically linked ELF: the step
// then runs `words` without a shell and carries the guard's channel. nullopt, and `extras`
// untouched, where the guard does not apply or `library` is empty. Throws std::runtime_error
// when the channel cannot be made.
std::optional<MainGuard> attach_main_guard(const std::filesystem::path& library,
                                           const std::filesystem::path& workspace,
                                           const std::optional<std::vector<std::string>>& words,
                                           StepExtras& extras);

// A step command with no shell syntax splits into words and runs without a shell, so a preloaded
// library (the profiler, the main guard) loads into the program alone; nullopt when it needs the
// shell.
std::optional<std::vector<std::string>> simple_command_words(const std::string& command);

ProcessResult run_step(const StepSettings& settings, const MachineInfo& machine,
                       const std::string& command, const std::filesystem::path& workspace,
                       double timeout_s, const StepExtras& extras = {});

}  // namespace kjudge
