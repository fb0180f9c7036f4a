#pragma once
// The judge's model of a ComputeEval problem and of a solution to it. Plain data: reading and
// writing the formats lives in problem_json / datapack / problem_dir, never here.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace kjudge {

struct SourceFile {
  std::string path;
  std::string content;
};

// ComputeEval accepts a string, a list (both mean "all of these") or {any, all}; the loader
// normalises every form to this one.
struct SourceReferences {
  std::vector<std::string> all;
  std::vector<std::string> any;
  bool empty() const { return all.empty() && any.empty(); }
};

struct TimingMode {
  std::string type = "process";  // process | kernels | region | gpu | custom
  std::vector<std::string> include;
  std::vector<std::string> exclude;
  std::string time_type;  // region only: kernel | wall_clock
};

// A solution whose record (a solutions.jsonl line, a solution folder's files) is larger than
// this is not read: it is graded invalid_solution from its size alone (Solution::refused), so a
// hostile pack costs the judge no more memory than this per line. The judge's limit on what a
// solution may hold (eval/solution_rules.h, SolutionLimits) is far below it.
inline constexpr std::size_t kMaxSolutionRecordBytes = std::size_t{16} << 20;

struct Solution {
  std::string task_id;
  int sample = 0;  // index among the samples of one task, from 0
  std::vector<SourceFile> files;
  // Set by a reader that would not load the files (a line over the size limits): why. The
  // judge grades such a solution invalid_solution without reading further.
  std::string refused;
};

struct Problem {
  std::string type = "cuda_cpp";  // cuda_cpp | cuda_python
  int schema_version = 2;
  std::string task_id;
  std::string date;
  std::string prompt;
  std::string group;
  std::string difficulty;  // "" when the pack gives none
  std::vector<std::string> tags;
  std::vector<std::string> releases;
  bool do_not_release = false;
  // KernelJudge extension (metadata.host_only): the problem needs no GPU to build or test, so it
  // is not skipped on a machine without one. ComputeEval ignores unknown metadata keys.
  bool host_only = false;

  std::vector<SourceFile> context_files;
  std::vector<SourceFile> test_files;
  std::optional<SourceReferences> source_references;

  std::optional<std::string> build_command;
  std::string test_command;
  std::optional<std::string> benchmark_command;
  TimingMode timing_mode;

  std::optional<std::string> min_cuda_toolkit;
  std::optional<std::string> compute_capability;
  bool requires_datacenter_gpu = false;
  std::optional<double> timeout_seconds;

  std::optional<Solution> baseline_solution;

  // ComputeEval's default when timeout_seconds is null.
  double timeout_or_default() const { return timeout_seconds.value_or(60.0); }
};

}  // namespace kjudge
