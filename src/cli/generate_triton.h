#pragma once
// `kjudge generate --tritonbench DIR`: asks a model for Triton operators (TritonBench G and/or
// T, simple or complex instruction, optionally one-shot) through the same generation session as
// ComputeEval problems (journal, answers/, --resume), and writes a Triton solutions JSONL
// instead of a ComputeEval pack: one `{channel, file, operator, code, sample, instruction}` per
// answer, the file `kjudge triton eval --solutions` reads.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <string>

#include "cli/generation_session.h"

namespace kjudge {

struct TritonGenArgs {
  std::string tritonbench;               // the data folder; empty: not a Triton run
  std::string channel;                   // "G", "T" or "" (both)
  std::string instruction = "simple";    // simple | complex
  std::string one_shot;                  // corpus for one-shot retrieval; empty: zero-shot
  std::string one_shot_db = ":memory:";  // where the FTS5 index lives
};

void add_triton_generate_options(CLI::App* cmd, TritonGenArgs& t);

// Runs the generation into `out`; returns an exit code (exit_codes.h). Throws InputError for bad
// input (the folder, the options, the corpus).
int run_triton_generate(const GenArgs& args, const TritonGenArgs& t,
                        const std::filesystem::path& out);

}  // namespace kjudge
