#pragma once
// Faults of the machine are never the model's (issue 34): before `evaluate` judges a
// problem's solutions, the problem's own baseline is judged once on this machine, and the answer
// is kept per environment fingerprint (toolkit, driver, GPUs, the extra libraries and Python
// environment, the sandbox) in the build cache's folder. Then:
//   * a baseline that does not pass here (it fails to build, fails its test, times out) means
//     the machine cannot judge the problem: its solutions are skipped with the reason
//     ("baseline_fails"), apart from pass@k, instead of being charged with the machine's fault;
//   * a baseline that needs more than half of the problem's time limit here (ComputeEval's
//     limits were set on other machines: CUDA/51's build took 28–31 s of its 30 s on a busy
//     32-core H100) has the limit scaled for every solution of the problem to twice what the
//     baseline took, at most ten times the original, so a verdict never flips on the machine's
//     speed. Both are reported in run.json and the summary's warnings.
// A baseline the machine could not judge (judge_error) decides nothing and is not kept. Not yet
// for `run`, whose answers are graded as they arrive: a check first would hold them back.
#include <atomic>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/problem.h"
#include "eval/evaluator.h"
#include "run/machine.h"

namespace kjudge::plan {

struct BaselineFinding {
  std::string task_id;
  std::string verdict;  // the baseline's verdict here
  std::string detail;
  double build_s = 0, test_s = 0;
  bool from_cache = false;
  // What follows for the problem's solutions.
  bool fails = false;           // skipped as "baseline_fails"
  double scaled_timeout_s = 0;  // > 0: the limit they run under
};

// The environment's fingerprint: what can make one problem's baseline pass on one machine and
// fail on another.
std::string environment_fingerprint(const MachineInfo& machine, const EvalOptions& eval);

// Judges the baselines of `problems` (those that have one and are not skipped here), taking
// what the cache already knows; `progress` prints a line on stderr when true.
std::vector<BaselineFinding> check_baselines(const std::vector<const Problem*>& problems,
                                             const EvalOptions& eval, const MachineInfo& machine,
                                             bool progress);

}  // namespace kjudge::plan
