#pragma once
// Carries out a planned run with the executor its options name (issue 33): on this machine
// (plan/local_executor.h), an array task's shard included, or over Slurm from the submitting
// machine (plan/slurm_executor.h). Both end in the one writer (plan/run_summary.h).
#include "plan/run_plan.h"

namespace kjudge::plan {

// The run's exit code (plan/run_summary.h); errors are thrown (core/error.h).
int execute(RunPlan& plan);

}  // namespace kjudge::plan
