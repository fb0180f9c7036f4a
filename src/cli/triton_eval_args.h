#pragma once
// The options of `kjudge triton eval`, shared with `kjudge evaluate`, which judges a Triton
// solutions pack by the same code (cli/evaluate_triton.h): the engine's own options
// (triton/judge/eval_run.h) and what only the command has (the sandbox options, the log cap,
// --json).
#include <cstddef>
#include <string>

#include "cli/step_options.h"
#include "triton/judge/eval_run.h"

namespace kjudge {

struct TritonEvalArgs : triton::TritonEvalRunOptions {
  TritonEvalArgs() { python = default_triton_python(); }

  bool json = false;
  StepArgs steps;
  std::size_t log_cap = 16 * 1024;

  // $KJUDGE_TRITON_PYTHON, else "python3" from PATH: `kjudge evaluate` has no --python, and
  // the interpreter with torch is usually a venv's.
  static std::string default_triton_python();
};

// Runs `kjudge triton eval` with these options; sets rc (cmd_triton.cpp).
void run_triton_eval(const TritonEvalArgs& a, int& rc);

}  // namespace kjudge
