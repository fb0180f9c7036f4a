// The choice of executor (plan/execute.h).
#include "plan/execute.h"

#include "plan/local_executor.h"
#include "plan/slurm_executor.h"

namespace kjudge::plan {

int execute(RunPlan& plan) {
  return plan.on_slurm() ? execute_on_slurm(plan) : execute_locally(plan);
}

}  // namespace kjudge::plan
