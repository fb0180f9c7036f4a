#pragma once
// The options of `kjudge generate --tritonbench DIR`, which asks a model for Triton operators
// (TritonBench G and/or T, simple or complex instruction, optionally one-shot) and writes a
// Triton solutions JSONL (`kjudge triton eval --solutions`); the run is plan/generate.h's.
#include <CLI/CLI.hpp>

#include "plan/generate.h"

namespace kjudge {

using TritonGenArgs = plan::TritonGenOptions;

void add_triton_generate_options(CLI::App* cmd, TritonGenArgs& t);

}  // namespace kjudge
