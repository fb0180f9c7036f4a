#pragma once
// `kjudge evaluate --problems TRITONBENCH_DIR --solutions TRITON_PACK`: the Triton judge behind
// the command that judges every other kind of solutions, with the same code as
// `kjudge triton eval DIR --solutions FILE` (docs/triton.md, "kjudge evaluate on a Triton
// solutions pack"). The evaluate command's own dispatch (cmd_run.cpp) asks is_triton_evaluation
// (triton/data/pack.h) first and hands over its parsed options.
#include <CLI/CLI.hpp>

#include "triton/data/pack.h"

namespace kjudge {

// Runs the Triton judge with the options given to `kjudge evaluate` (`cmd`, parsed). Options
// that have no meaning for Triton operators (pass@k, the build cache, Slurm, …) are refused by
// name rather than ignored. Returns the exit code.
int evaluate_triton_pack(const CLI::App& cmd);

}  // namespace kjudge
