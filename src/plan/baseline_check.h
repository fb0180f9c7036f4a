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
// A baseline that times out alone on the machine runs once more with ten times its limit, so that
// what it needs here is known: finishing then scales the limit as above. With --sanitize the
// baseline's passing test runs under the same tools: errors in the baseline itself are the
// problem's, and the same tools' errors in its solutions are reported, not charged.
// A baseline the machine could not judge (judge_error) decides nothing and is not kept; nor is a
// failing one, which is judged again next time (one bad moment of the machine must not skip a
// problem for good). `kjudge run` judges the baselines while the model answers, and holds the
// answers until the check ends.
#include <atomic>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/problem.h"
#include "eval/evaluator.h"
#include "plan/interrupts.h"
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
  // The --sanitize tools that find errors in the baseline itself: theirs in a solution are
  // reported, not charged (EvalOptions::baseline_sanitizer_errors).
  std::vector<std::string> sanitizer_errors;
};

// The environment's fingerprint: what can make one problem's baseline pass on one machine and
// fail on another.
std::string environment_fingerprint(const MachineInfo& machine, const EvalOptions& eval);

// Judges the baselines of `problems` (those that have one and are not skipped here), taking
// what the cache already knows; `progress` prints a line on stderr when true. With `interrupts`,
// Ctrl-C stops the check as it stops a run (what was judged is kept).
std::vector<BaselineFinding> check_baselines(const std::vector<const Problem*>& problems,
                                             const EvalOptions& eval, const MachineInfo& machine,
                                             bool progress,
                                             const RunInterrupts* interrupts = nullptr);

// What a run makes of the findings.
struct BaselineOutcome {
  std::set<std::string> fails;  // task_ids whose solutions are skipped (baseline_fails)
  nlohmann::json report = nlohmann::json::array();                // run.json "baselines"
  std::vector<std::string> warnings;                              // for the summary
  std::map<std::string, std::set<std::string>> sanitizer_errors;  // task_id → tools
  // What each passing baseline's test took here (EvalOptions::baseline_test_s): a solution's
  // timeout under load is judged against it.
  std::map<std::string, double> test_s;
};

// Applies `findings` to `problems` (a scaled limit becomes the problem's timeout_seconds) and
// says what else follows.
BaselineOutcome apply_baseline_findings(const std::vector<BaselineFinding>& findings,
                                        std::vector<Problem>& problems);

// The record of a solution skipped because its problem's baseline does not pass here.
GradedSolution baseline_skip(const Problem& p, const Solution& s, const BaselineOutcome& o);

}  // namespace kjudge::plan
