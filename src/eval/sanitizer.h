#pragma once
// "Luck does not pass" (issue 34): a passing solution's test run once more under NVIDIA's
// compute-sanitizer, which sees what a plain run survives when the memory happens to hold the
// right bytes: an out-of-bounds read (memcheck), a shared-memory race (racecheck), a read of
// memory never written (initcheck), a misused barrier (synccheck).
//
// The run is the test step again (same workspace, sandbox and environment), with the program
// started by the sanitizer: `compute-sanitizer --tool T --error-exitcode 86 --check-exit-code no
// --target-processes all PROGRAM ARGS` (a command with shell syntax runs as `sh -c` under it).
// The main guard is not preloaded there: the sanitizer is the program the loader starts, so the
// guard would watch its main(), not the test's; the guarded runs have already decided that the
// test's main() returned. What the run ends in (judge_sanitizer_run):
//   * exit 86 with an "ERROR SUMMARY: N errors" line, N > 0: errors, the solution's fault;
//   * exit 0: clean;
//   * anything else (no sanitizer, a timeout, a signal, the test failing under the tool without
//     an error the tool reports, the tool's own error): inconclusive, the judge's fault.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "eval/env_check.h"
#include "eval/graded.h"
#include "run/machine.h"
#include "run/process.h"

namespace kjudge {

// The status compute-sanitizer is asked to end with when it found errors.
inline constexpr int kSanitizerErrorExit = 86;

// The tools compute-sanitizer has, in the order they run.
const std::vector<std::string>& sanitizer_tools();

// "memcheck,racecheck" (repeatable, comma-separated) → the tools, each once, in sanitizer_tools()
// order. Throws std::invalid_argument naming a tool it does not have.
std::vector<std::string> parse_sanitizer_tools(const std::vector<std::string>& given);

// The compute-sanitizer to run: `given` (an option) when not empty, else
// $KJUDGE_COMPUTE_SANITIZER, else the toolkit's: beside nvcc (`bin/compute-sanitizer`), then the
// toolkit's `compute-sanitizer/` folder. Empty when none is an executable file.
std::filesystem::path locate_compute_sanitizer(const std::string& nvcc_path,
                                               const std::filesystem::path& given = {});

// The argv of one checked run of `test_command`: its words when it is a simple command, else
// `/bin/sh -c test_command`, after the sanitizer and its options.
std::vector<std::string> sanitizer_argv(const std::filesystem::path& sanitizer,
                                        const std::string& tool, const std::string& test_command);

// What the sanitizer said: its last "ERROR SUMMARY" count (nullopt: no such line), and the
// first error's lines (up to `max_lines`, the "=========" prefix and its spaces removed).
struct SanitizerOutput {
  std::optional<int> errors;
  std::vector<std::string> first_error;
};
SanitizerOutput parse_sanitizer_output(const std::string& output, std::size_t max_lines = 12);

// The record of one checked run that ended in `r` within `timeout_s` (its step left to the
// caller).
SanitizerRecord judge_sanitizer_run(const std::string& tool, const ProcessResult& r,
                                    double timeout_s);

std::string_view to_string(SanitizerOutcome o);
std::optional<SanitizerOutcome> sanitizer_outcome_from_string(std::string_view s);

// The doctor's line for compute-sanitizer: found and runs (`--version`), with its version. A
// failure when `required` (--sanitize is on), a warning otherwise.
EnvCheck sanitizer_check(const MachineInfo& machine, const std::filesystem::path& given,
                         bool required);

}  // namespace kjudge
