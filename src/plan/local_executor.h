#pragma once
// The local executor: carries a planned run out on this machine (issue 33). The machine and the
// sandbox are checked, run.json is written, the journal resumed, the jobs graded by the Evaluator
// (kjudge run: fed by a generation session as the model answers), --benchmark times the passes,
// and the one writer (plan/run_summary.h) reports it. An array task of --executor slurm runs a
// shard this way too.
#include "plan/run_plan.h"

namespace kjudge::plan {

// Returns the run's exit code (plan/run_summary.h); throws Error when the machine cannot run it.
int execute_locally(RunPlan& plan);

}  // namespace kjudge::plan
