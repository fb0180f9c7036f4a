#pragma once
// The options of kjudge validate|evaluate|run as plain values: what the planner (plan/run_plan.h)
// and the executors take. The command line fills them (cli/cmd_run.cpp); no CLI11 here.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "plan/generation_session.h"
#include "plan/load.h"
#include "plan/step_options.h"
#include "slurm/options.h"

namespace kjudge::plan {

struct RunOptions {
  std::string problems;
  std::string solutions;
  std::vector<int> ks{1};
  // Whether -k (or ComputeEval's --k) was given: --resume without it keeps the run's own ks.
  bool ks_given = false;
  std::string out;
  bool resume = false;
  ProblemFilter filter;
  int workers = 0;
  int tests_per_gpu = 4;
  std::vector<int> gpus;
  bool no_cache = false;
  std::string cache_dir;
  std::string work_dir;
  bool keep_workspaces = false;
  bool skip_env_check = false;
  bool json = false;
  bool quiet = false;
  std::size_t log_cap = 16 * 1024;
  int retries = 2;
  bool no_quiet_retry = false;
  bool strict_timeouts = false;  // every timeout under load to the quiet retry (no evidence)
  StepArgs steps;
  bool build_only = false;  // build every solution and stop: no test, no GPU needed
  // evaluate: judge each problem's own baseline first (plan/baseline_check.h); off with
  // --no-baseline-check
  bool no_baseline_check = false;
  bool benchmark = false;
  int runs = 5;
  int warmups = 1;
  std::string profiler;
  // "Luck does not pass" (issue 34; eval/evaluator.h EvalOptions): each test run `repeat` times,
  // and a passing one once more under each compute-sanitizer tool of `sanitize` (memcheck,
  // racecheck, initcheck, synccheck; --memcheck adds memcheck), with `sanitize_timeout` times
  // the problem's timeout; `sanitizer` names the binary (default: beside nvcc).
  int repeat = 1;
  std::vector<std::string> sanitize;
  bool memcheck = false;
  std::string sanitizer;
  double sanitize_timeout = 10;
  std::shared_ptr<GenArgs> gen;  // kjudge run: the model to ask
  slurm::SlurmArgs slurm;
};

}  // namespace kjudge::plan
