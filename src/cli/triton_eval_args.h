#pragma once
// The options of `kjudge triton eval`, shared with `kjudge evaluate`, which judges a Triton
// solutions pack by the same code (cli/evaluate_triton.h).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cli/step_options.h"
#include "triton/runner/run.h"

namespace kjudge {

struct TritonEvalArgs {
  std::string dir;
  std::string solutions;
  std::string llm_generated;
  bool self = false;
  bool codebleu = false;
  std::string codebleu_python;  // default: --python
  int rounds = 4;
  int warmup_rounds = 1;
  bool no_reference_check = false;
  bool prestart = false;        // start each timing process while the one before it runs
  bool keep_defective = false;  // ignore the table of known test defects (triton/judge/defects.h)
  std::string peaks;
  std::string channel;
  std::vector<std::string> operators;
  int difficulty = 0;
  int limit = 0;
  bool speedup = false;
  // With speedup: the judge's CUPTI profiler in every timing process (triton/timing/cupti.h).
  // By default it is used where its library is found; cupti: required (no library is an
  // error); no_cupti: not used.
  bool cupti = false;
  bool no_cupti = false;
  std::string profiler;  // its library; empty: $KJUDGE_PROFILER, or beside kjudge
  std::string out;
  bool resume = false;  // finish the run in `out` (its results.jsonl and run.json)
  bool json = false;
  bool quiet = false;  // no progress lines (kjudge evaluate -q)
  std::string python = default_triton_python();
  std::string runner;
  // Where the judge keeps its bytecode of torch, triton and numpy
  // (triton/runner/python_bytecode.h); empty: $XDG_CACHE_HOME or ~/.cache. no_bytecode_cache: every
  // run compiles what it imports.
  std::string bytecode_cache;
  bool no_bytecode_cache = false;
  double timeout_s = 180;
  std::uint64_t seed = 20251122;
  int workers = 4;
  int gpu = -1;
  bool keep_workspaces = false;
  triton::TritonTiming timing;
  StepArgs steps;
  std::size_t log_cap = 16 * 1024;

  // $KJUDGE_TRITON_PYTHON, else "python3" from PATH: `kjudge evaluate` has no --python, and
  // the interpreter with torch is usually a venv's.
  static std::string default_triton_python();
};

// Runs `kjudge triton eval` with these options; sets rc (cmd_triton.cpp).
void run_triton_eval(const TritonEvalArgs& a, int& rc);

}  // namespace kjudge
