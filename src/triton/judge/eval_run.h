#pragma once
// A whole `kjudge triton eval` run, the engine behind that command and the Triton path of
// `kjudge evaluate`: the jobs the options select, the interpreter, runner, profiler and bytecode
// cache set up, the run folder (run.json, the journals, summary.json), evaluate_triton and the
// summary. It takes a plain options struct, which the commands fill from their arguments
// (cli/triton_eval_args.h), and prints nothing itself: its notes and progress lines go to a
// callback, and the commands print the table or the JSON.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "eval/step_runner.h"
#include "triton/candidates/llm_generated.h"
#include "triton/data/tritonbench.h"
#include "triton/judge/eval.h"

namespace kjudge::triton {

// What to judge and how (the options of `kjudge triton eval`, docs/triton.md).
struct TritonEvalRunOptions {
  std::string dir;
  std::string solutions;
  std::string llm_generated;
  bool self = false;
  bool codebleu = false;
  std::string codebleu_python;  // default: python
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
  bool quiet = false;   // no notes or progress lines (warnings still go out)
  std::string python;
  std::string runner;
  // Where the judge keeps its bytecode of torch, triton and numpy
  // (triton/runner/python_bytecode.h); empty: $XDG_CACHE_HOME or ~/.cache. no_bytecode_cache:
  // every run compiles what it imports.
  std::string bytecode_cache;
  bool no_bytecode_cache = false;
  double timeout_s = 180;
  std::uint64_t seed = 20251122;
  int workers = 4;
  int gpu = -1;
  bool keep_workspaces = false;
  TritonTiming timing;
};

// The sandbox every run steps into, resolved by the command (cli/step_options.h).
struct TritonEvalSandbox {
  StepSettings settings;
  std::string mode;        // "bwrap" or "none", for reports
  std::string limits_how;  // how limits are enforced here (cgroup or rlimits)
};

// Why a run did not start: its options (usage) or this machine (environment), in words.
struct TritonEvalStop {
  enum class Kind { usage, environment };
  Kind kind = Kind::usage;
  std::string message;
};

// What prepare_triton_eval found, for run_triton_eval_jobs. The jobs point into `bench`.
struct TritonEvalSetup {
  TritonBench bench;
  LlmGeneratedFile llm;
  std::vector<TritonJob> jobs;
  TritonEvalOptions opt;  // the runner's interpreter, script and bytecode cache; the profiler
  std::filesystem::path run_dir;
  std::filesystem::path results_path;
  bool resuming = false;
  std::string cupti_why;  // why timing goes without the profiler; empty when it does not
  nlohmann::ordered_json bytecode = nullptr;
};

// The notes and progress lines of a run, one line each, without the newline.
using TritonEvalNote = std::function<void(const std::string&)>;

// "G" or "T" as a channel; "" (every channel): nullopt.
std::optional<TritonChannel> triton_channel_filter(const std::string& c);

// The data folder read, the jobs selected, the interpreter and runner found, the profiler and
// the bytecode cache settled: nullopt, or why the run cannot start. Throws InputError for bad
// input (the folder, a solutions file, an unknown --operator).
std::optional<TritonEvalStop> prepare_triton_eval(const TritonEvalRunOptions& a, TritonEvalSetup& s,
                                                  const TritonEvalNote& note);

struct TritonEvalDone {
  nlohmann::ordered_json summary;  // as written to summary.json
  bool judge_errors = false;       // some job ended as a judge error
};

// Judges the prepared jobs in the run folder: run.json, results.jsonl as each job is judged,
// references.jsonl and summary.json at the end (with the earlier results where it resumes).
TritonEvalDone run_triton_eval_jobs(const TritonEvalRunOptions& a, TritonEvalSetup& s,
                                    const TritonEvalSandbox& sandbox, const TritonEvalNote& note);

}  // namespace kjudge::triton
