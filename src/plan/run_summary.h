#pragma once
// The one writer of a run's summary.json (issue 33), for the local executor and the Slurm one
// alike: pass@k and the verdicts over the graded solutions (eval/summary.h), what the plan and
// the executor say about the run, the generation side of kjudge run; then the summary on stdout
// (--json) and the terminal table, and the exit code a script sees.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "eval/graded.h"
#include "plan/generation_session.h"
#include "plan/graded_file.h"
#include "plan/run_plan.h"

namespace kjudge::plan {

// What an executor reports of a run it carried out.
struct RunOutcome {
  const std::vector<GradedSolution>* results = nullptr;  // every graded solution, journal order
  const SolutionFiles* solutions = nullptr;  // their files (the ComputeEval graded file's)
  bool complete = false;                     // every job graded, nothing interrupted
  bool interrupted = false;
  std::string interrupted_message;  // said on stderr then: how to finish the run
  std::string sandbox;              // "bwrap", "none" (several, joined, for Slurm shards)
  std::string sandbox_limits;
  std::string main_guard;  // "on", "off (...)"; empty: not known, left out
  nlohmann::json broken_gpus = nlohmann::json::array();
  nlohmann::json executor;                            // null: the local one, left out
  nlohmann::json notes = nlohmann::json::array();     // the executor's, after the plan's
  nlohmann::json warnings = nlohmann::json::array();  // left out when empty
  nlohmann::json performance;                         // --benchmark; null: left out
  nlohmann::json phases;  // timing.phases (Evaluator::PhaseTimes); null: left out (Slurm)
  GenerationSession* session = nullptr;  // kjudge run: the generation side
  bool report_hint = false;              // end with the `kjudge report` command line
};

// Writes plan.out/summary.json and the ComputeEval graded file (plan/graded_file.h), prints it
// (--json) and the table (unless -q), and returns the exit code: interrupted, judge_error, findings
// (unreadable input, validate's failures) or ok.
int write_run_summary(const RunPlan& plan, const RunOutcome& outcome);

}  // namespace kjudge::plan
