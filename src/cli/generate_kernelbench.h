#pragma once
// The options of `kjudge generate --kernelbench DIR [--level N]`, which asks a model for
// KernelBench's ModelNew solutions and writes kernelbench-solutions.jsonl (`kjudge kernelbench
// eval --solutions`); `kjudge run --kernelbench` takes the same two. The run is
// plan/generate_kernelbench.h's.
#include <CLI/CLI.hpp>

#include "plan/generate.h"

namespace kjudge {

using KernelBenchGenArgs = plan::KernelBenchGenOptions;

// `writes`: what the --kernelbench option's help says comes out.
void add_kernelbench_generate_options(CLI::App* cmd, KernelBenchGenArgs& k, const char* writes);

}  // namespace kjudge
