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
  // > 0: the step timed out alone on the machine under the problem's limit and ran again under
  // this one, the machine's (EvalOptions::machine_limit_factor); what it took is wall_s.
  double extended_limit_s = 0;
  // The machine was loaded, and the step ran past its wall limit with less CPU time than the
  // limit, so the limit applied to its CPU time (EvalOptions::starved_build_factor); cpu_s is
  // what its CPU time came to.
  bool cpu_limited = false;
  double cpu_s = 0;
  // Tests on a loaded machine (EvalOptions::timeout_evidence): the time the machine kept the
  // step waiting and the GPU time its neighbours took; wall_s less it is the time it had clear.
  // < 0: not measured.
  double lost_s = -1;
};

// One run of the test among --repeat N (Evaluator: a solution passes only if every run passes).
struct TestRun {
  Verdict verdict = Verdict::judge_error;
  std::string detail;
  int exit_code = -1;
  int signal = 0;
  bool timed_out = false;
  double wall_s = 0;
};

// What one compute-sanitizer run of a passing solution's test found (--sanitize, eval/sanitizer.h).
enum class SanitizerOutcome {
  clean,         // no error, and the test passed under the tool
  errors,        // the tool reported errors: the solution's fault (verdict sanitizer_error)
  inconclusive,  // the tool could not judge (missing, timed out, the run failed without an
                 // error it reported): the judge's fault (judge_error), never the solution's
};

struct SanitizerRecord {
  std::string tool;  // memcheck, racecheck, initcheck or synccheck
  SanitizerOutcome outcome = SanitizerOutcome::inconclusive;
  int errors = 0;                   // as its ERROR SUMMARY line counts them
  std::vector<std::string> report;  // the first error's lines, without the "=========" prefix
  std::string detail;               // one line for people
  StepRecord step;                  // the run itself (log capped and redacted as a test's)
  // The problem's own baseline has errors under this tool on this machine (the baseline
  // check): this run's errors are reported, not charged (EvalOptions::baseline_sanitizer_errors).
  bool baseline_too = false;
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
  StepRecord test;  // with --repeat N, the first failing run's (else the last run's)
  // --repeat N > 1: every run's outcome, in order (results.jsonl `repeats`). A solution whose
  // runs disagree is flaky.
  std::vector<TestRun> repeats;
  // --sanitize: the passing test once more under each tool (results.jsonl `sanitizer`).
  std::vector<SanitizerRecord> sanitizer;
  int gpu = -1;  // GPU index the test ran on; -1 without one
  // What the static pass found in the solution's own files (results.jsonl `cheat_flags`):
  // reported, never a verdict.
  std::vector<StaticFlag> flags;
  double total_s = 0;
  // Where the job's workspace was kept (EvalJob::keep_workspace); not part of the journal.
  std::string workspace;

  // The runs of --repeat gave different verdicts.
  bool flaky() const {
    for (const TestRun& r : repeats)
      if (r.verdict != repeats.front().verdict) return true;
    return false;
  }
};

}  // namespace kjudge
