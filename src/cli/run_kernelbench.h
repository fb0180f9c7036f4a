#pragma once
// `kjudge run --kernelbench DIR`: the options that make `kjudge run` generate and judge
// KernelBench solutions (the data folder, the level, how answers are judged), and the callback
// that maps the run's shared options (--out, --resume, --workers, --gpus, --cache-dir, the
// sandbox, the filters) onto the KernelBench judge, refusing the ComputeEval-only ones. The run
// is plan/run_kernelbench.h's.
#include <CLI/CLI.hpp>
#include <memory>

#include "cli/generate_kernelbench.h"
#include "cli/kernelbench_options.h"
#include "plan/run_options.h"

namespace kjudge {

struct KernelBenchRunArgs {
  KernelBenchGenArgs kb;
  KernelBenchJudgeArgs judge;
};

void add_kernelbench_run_options(CLI::App* run, KernelBenchRunArgs& k);

// True when --kernelbench was given; then the run is done and `rc` set. Otherwise throws a
// usage Error for a KernelBench-only option given without --kernelbench.
bool run_kernelbench_if_asked(CLI::App* run, const plan::RunOptions& rn, KernelBenchRunArgs& k,
                              int& rc);

}  // namespace kjudge
