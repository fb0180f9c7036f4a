#pragma once
// A whole `kjudge kernelbench eval` run, on a plain options struct the command fills: the
// dataset and the solutions read, the interpreter, runner, profiler and bytecode cache found,
// the run folder (run.json, results.jsonl as each solution is judged, summary.json), one
// sandboxed runner process per solution, `workers` at a time, sharing the GPU through one gate
// (kernelbench/runner/gpu_gate.h: correctness among others, timing alone). It prints nothing:
// notes and progress go to a callback, and the command prints the table or the JSON. The
// judging itself is the stream's (kernelbench/judge/eval_stream.h), given every selected
// solution at once; `kjudge run --kernelbench` feeds the same stream answer by answer.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "eval/step_runner.h"
#include "kernelbench/judge/grade.h"
#include "kernelbench/runner/run.h"

namespace kjudge::kernelbench {

struct EvalOptions {
  std::string dir;
  std::string solutions;  // a JSON-lines file or KernelBench's run folder
  bool self = false;      // every selected reference as its own ModelNew
  int level = 0;
  std::vector<std::string> problems;  // "L1/19", "19" with --level, ... (repeatable)
  int limit = 0;
  std::string out;
  bool resume = false;
  int workers = 4;
  int gpu = -1;
  double timeout_s = 300;
  int trials = 5;  // correctness trials (KernelBench's eval scripts: 5)
  double atol = 1e-2, rtol = 1e-2;
  std::uint64_t weights_seed = 42;  // KernelBench's: Model and ModelNew built under it
  std::uint64_t seed = 0;           // the trials' inputs; 0: a fresh secret (kept in run.json)
  bool speedup = true;
  bool compile = true;
  Timing timing;
  HackPolicy hacks = HackPolicy::fail;
  std::string python;  // default python3
  std::string runner;
  std::string profiler;
  bool cupti = false, no_cupti = false;
  std::string bytecode_cache;
  bool no_bytecode_cache = false;
  std::string cache_dir;  // the built extensions, by source; default ~/.cache/kjudge/kernelbench
  bool no_cache = false;
  std::uint64_t gpu_memory_bytes = 0;  // each run's cap on torch's allocator; 0: none
  std::string hf_home;                 // level 4's model cache; default $HF_HOME
  bool quiet = false;
};

struct EvalSandbox {
  StepSettings settings;
  std::string mode;
  std::string limits_how;
};

struct EvalStop {
  enum class Kind { usage, environment };
  Kind kind = Kind::usage;
  std::string message;
};

struct EvalDone {
  nlohmann::ordered_json summary;
  std::filesystem::path run_dir, results;
  bool judge_errors = false;
  bool env_errors = false;
};

using Note = std::function<void(const std::string&)>;

// Throws InputError for bad input (the folder, the solutions, a --problem that names nothing);
// returns an EvalStop for what keeps the run from starting (no interpreter, no runner).
EvalDone run_eval(const EvalOptions& a, const EvalSandbox& sandbox, const Note& note,
                  EvalStop* stop);

// Level 4's model cache: `given`, else $HF_HOME; empty when neither names a folder. `why` says
// what is missing.
std::filesystem::path hf_cache(const std::string& given, std::string* why);

// The seed of trial `i` of a problem's correctness check, from the run's seed.
std::uint64_t trial_seed(std::uint64_t run_seed, const std::string& problem_key, int i);

}  // namespace kjudge::kernelbench
