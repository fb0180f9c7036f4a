#pragma once
// The record of grading one solution: what the journal stores and the summary reads.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "eval/static_flags.h"
#include "eval/verdict.h"

namespace kjudge {

struct StepRecord {
  bool ran = false;
  bool cached = false;  // build only: restored from the build cache
  int exit_code = -1;
  int signal = 0;
  bool timed_out = false;
  double wall_s = 0;
  std::string log;  // capped; see log_truncated
  bool log_truncated = false;
  std::size_t log_bytes = 0;            // what the step wrote in total
  int attempts = 0;                     // > 1 when retried (judge error, or a timeout under load)
  bool quiet_retry = false;             // the final attempt ran with the machine otherwise idle
  std::uint64_t memory_peak_bytes = 0;  // peak memory of the step; 0 where not measured
};

struct GradedSolution {
  std::string task_id;
  int sample = 0;
  std::string group;
  std::string difficulty;
  Verdict verdict = Verdict::judge_error;
  std::string skip_code;  // skipped only: cuda_toolkit, compute_capability, no_gpu, ...
  std::string detail;     // one line for people: why this verdict
  StepRecord build;
  StepRecord test;
  int gpu = -1;  // GPU index the test ran on; -1 without one
  // What the static pass found in the solution's own files (results.jsonl `cheat_flags`):
  // reported, never a verdict.
  std::vector<StaticFlag> flags;
  double total_s = 0;
  // Where the job's workspace was kept (EvalJob::keep_workspace); not part of the journal.
  std::string workspace;
};

}  // namespace kjudge
