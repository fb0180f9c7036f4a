#pragma once
// `kjudge generate`: solutions from a language model for a problems pack (a ComputeEval
// solutions pack; with --turns each answer is built and tested in the sandbox and the model
// told why it failed), for TritonBench operators (--tritonbench: a Triton solutions JSONL,
// `kjudge triton eval --solutions`; the Triton side of it is triton/candidates/generation.h) or
// for KernelBench problems (--kernelbench: a solutions JSONL for `kjudge kernelbench eval`;
// plan/generate_kernelbench.h).
// Both go through one generation session (journal, answers/, --resume, Ctrl-C); the command
// (cli/cmd_generate.cpp) fills the plain options.
#include <filesystem>
#include <string>

#include "plan/generation_session.h"

namespace kjudge::plan {

struct TritonGenOptions {
  std::string tritonbench;               // the data folder; empty: not a Triton run
  std::string channel;                   // "G", "T" or "" (both)
  std::string instruction = "simple";    // simple | complex
  std::string one_shot;                  // corpus for one-shot retrieval; empty: zero-shot
  std::string one_shot_db = ":memory:";  // where the FTS5 index lives
};

struct KernelBenchGenOptions {
  std::string dir;  // the data folder; empty: not a KernelBench run
  int level = 0;    // 0: every level
};

// The whole run; returns the exit code (core/exit_codes.h: ok, findings for unreadable problems,
// interrupted, judge_error for failed requests). Throws InputError for bad input and Error where
// the run cannot start.
int run_generate(const GenArgs& args, const TritonGenOptions& triton,
                 const KernelBenchGenOptions& kernelbench);

}  // namespace kjudge::plan
