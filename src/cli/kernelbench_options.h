#pragma once
// How KernelBench solutions are judged, as options: `kjudge kernelbench eval` and `kjudge run
// --kernelbench` take the same ones (trials, tolerances, timing, hacks, the interpreter and
// runner, CUPTI, caches, level 4's model cache), so the two judge alike. What each command names
// its own way (the run directory, workers, the GPU, the extension cache, the sandbox) stays with
// the command.
#include <CLI/CLI.hpp>
#include <string>

#include "kernelbench/judge/eval.h"

namespace kjudge {

struct KernelBenchJudgeArgs : kernelbench::EvalOptions {
  std::string hacks_text = "fail";
  std::string gpu_memory = "none";
};

// `group` (may be empty) is the help section they are listed under. `with_profiler`: add
// --profiler (kjudge run has its own, which names the same library).
void add_kernelbench_judge_options(CLI::App* cmd, KernelBenchJudgeArgs& a, const std::string& group,
                                   bool with_profiler);

// The textual options into EvalOptions: --hacks, --gpu-memory. Throws Error (usage).
void apply_kernelbench_judge_options(KernelBenchJudgeArgs& a);

}  // namespace kjudge
