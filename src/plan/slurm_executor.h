#pragma once
// The Slurm executor: carries a planned run out over a Slurm cluster, from the submitting
// machine (issue 33; docs/slurm.md). validate|evaluate: every job planned at once goes to job
// arrays (slurm/run.h); kjudge run: the model is asked from here and the answers are graded in
// shards cut as they arrive. The merged shards are reported by the one writer
// (plan/run_summary.h), exactly as a local run's.
#include "plan/run_plan.h"

namespace kjudge::plan {

// Returns the run's exit code (plan/run_summary.h).
int execute_on_slurm(RunPlan& plan);

}  // namespace kjudge::plan
