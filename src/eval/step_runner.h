#pragma once
// Runs one step of a solution (build, test or benchmark) in its workspace: in the sandbox with
// the clean environment every step gets, or, with the sandbox off, as a plain process with the
// judge's environment. The evaluator and the benchmarker share it, so a timed run sees exactly
// what a test run sees.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/problem.h"
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
  std::vector<std::string> env;                  // KEY=VALUE, added (or overriding)
  std::vector<std::filesystem::path> ro_paths;   // host files visible read-only in the sandbox
  std::vector<std::filesystem::path> path_dirs;  // put first on PATH, in this order
  std::vector<int> inherit_fds;                  // descriptors the step keeps
  // Libraries preloaded into the step's program (LD_PRELOAD, in this order). In the sandbox each
  // is bound read-only at preload_path(), so the step sees no host path of the judge's.
  std::vector<std::filesystem::path> preload;
  // When set, run this argv directly instead of `sh -c command` (the command then only names
  // the step in logs): a preloaded library then loads into the program alone, not the shell.
  std::vector<std::string> argv;
  // Builds on a loaded machine: the limit applies to CPU time past the wall limit, up to this
  // much wall time (ProcessSpec::starved_wall_cap_s). 0: the wall clock alone decides.
  double starved_wall_cap_s = 0;
  // Tests on a loaded machine: SandboxPolicy::stall_wall_cap_s, condemn_clear_s and
  // shared_lost_s (sandboxed steps only: the time lost is read from the step's cgroup).
  double stall_wall_cap_s = 0;
  double condemn_clear_s = 0;
  std::function<double()> shared_lost_s;
};

// What a step of `problem` needs beyond every step's setup: a cuda_python problem's steps run
// with the machine's Python environment (run/python_env.h) first on PATH, bound read-only.
// Empty for every other problem.
StepExtras problem_step_extras(const Problem& problem, const MachineInfo& machine);

// Where a step sees `library` of StepExtras::preload: the host path, or in the sandbox
// /.kjudge/preload/<its file name>.
std::filesystem::path preload_path(const StepSettings& settings,
                                   const std::filesystem::path& library);

// A step command with no shell syntax: its leading NAME=VALUE assignments (ComputeEval's
// `PYTHONPATH=. python test.py`) and its words. Such a command runs without a shell, so a
// preloaded library (the profiler, the main guard) loads into the program alone.
struct SimpleCommand {
  std::vector<std::string> env;   // NAME=VALUE, as the shell would export them
  std::vector<std::string> argv;  // never empty
};

// nullopt when the command needs the shell: any shell syntax, or an assignment to a variable the
// judge sets itself (PATH, LD_*, NVTX_*, CUDA_INJECTION*, KJUDGE_*), which the shell path keeps
// as the command's authors meant it.
std::optional<SimpleCommand> simple_command(const std::string& command);

// Preloads the main guard (run/main_return.h) into a step whose command is `command` (from
// simple_command) when its program is the workspace's own dynamically linked ELF: the step then
// runs the command's argv, with its assignments, without a shell and carries the guard's channel.
// nullopt, and `extras` untouched, where the guard does not apply or `library` is empty. Throws
// std::runtime_error when the channel cannot be made.
std::optional<MainGuard> attach_main_guard(const std::filesystem::path& library,
                                           const std::filesystem::path& workspace,
                                           const std::optional<SimpleCommand>& command,
                                           StepExtras& extras);

ProcessResult run_step(const StepSettings& settings, const MachineInfo& machine,
                       const std::string& command, const std::filesystem::path& workspace,
                       double timeout_s, const StepExtras& extras = {});

}  // namespace kjudge
