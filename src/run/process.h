#pragma once
// Runs one command as a child process in its own process group, with a wall-clock limit, and
// captures its merged stdout+stderr up to a cap. The whole group is killed on timeout and again
// after the child exits, so nothing it spawned outlives the run.
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kjudge {

struct ProcessSpec {
  std::vector<std::string> argv;  // argv[0] is looked up in PATH
  std::filesystem::path cwd;
  // Full environment for the child; nullopt inherits the judge's environment.
  std::optional<std::vector<std::string>> env;
  double timeout_s = 60.0;
  std::size_t output_cap = 64 * 1024;  // bytes kept: half from the start, half from the end
};

struct ProcessResult {
  bool started = false;  // false: fork/exec failed; `error` says why (a judge fault)
  std::string error;
  int exit_code = -1;  // valid when exited normally
  int signal = 0;      // non-zero when killed by a signal (other than our timeout kill)
  bool timed_out = false;
  std::string output;  // capped; a truncation marker stands in the middle when cut
  bool truncated = false;
  std::size_t output_bytes = 0;  // total bytes the process wrote
  double wall_s = 0;
  double cpu_s = 0;  // user+system of the child and its waited-for descendants

  bool ok() const { return started && !timed_out && signal == 0 && exit_code == 0; }
};

ProcessResult run_process(const ProcessSpec& spec);

// Convenience: runs `sh -c command`.
ProcessResult run_shell(const std::string& command, const std::filesystem::path& cwd,
                        double timeout_s, std::size_t output_cap = 64 * 1024,
                        std::optional<std::vector<std::string>> env = std::nullopt);

}  // namespace kjudge
