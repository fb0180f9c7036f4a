#pragma once
// The service's KernelBench targets (issue 37), `kernelbench:NAME#L1/19`: a problem of a
// KernelBench data folder the service loaded (`kjudge serve --kernelbench NAME=DIR`), the
// submission one Python file defining ModelNew. A job is judged by `kjudge kernelbench eval`'s
// own run (kernelbench/judge/eval.h) over a one-line solutions file, so the runner, the
// sandbox, the checks and the grading are the command's, not a second copy; the run's result is
// the line that run wrote to results.jsonl, field for field.
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "eval/step_runner.h"
#include "kernelbench/data/problems.h"

namespace kjudge::board {

using KernelBenchSets = std::map<std::string, kernelbench::Dataset>;  // name → data folder

// "kernelbench:NAME#REF" (REF as `kernelbench eval --problem` takes it: L1/19,
// level1/19_ReLU.py ...) → the problem; nullptr and `why` when it names none.
const kernelbench::Problem* find_kernelbench_problem(const KernelBenchSets& sets,
                                                     const std::string& target, std::string* why,
                                                     std::string* set_name = nullptr);

// The target as stored: "kernelbench:NAME#L<level>/<id>", whichever way REF named it.
std::string kernelbench_target(const std::string& set_name, const kernelbench::Problem& p);

struct KernelBenchJobOptions {
  std::filesystem::path data_dir;
  std::string python;  // the interpreter, absolute (board/service_python.h)
  StepSettings step;
  std::string sandbox_mode;  // as the result's options name it ("bwrap", "none")
  int gpu = -1;
  bool speedup = false;  // benchmark mode: timed against eager PyTorch and torch.compile
  // Extensions built by source (the same code is never compiled twice) and torch's bytecode;
  // empty: the command's defaults.
  std::filesystem::path extension_cache, bytecode_cache;
  std::filesystem::path work_root;  // where the one-solution run folder goes (a fresh one)
};

struct KernelBenchJobResult {
  nlohmann::ordered_json result;  // the results.jsonl line; a judge_error line when none came
  std::string verdict;            // result["verdict"]
};

// Never throws: what keeps the run from starting is a judge_error result saying why.
KernelBenchJobResult judge_kernelbench(const kernelbench::Problem& problem, const std::string& code,
                                       const KernelBenchJobOptions& options);

}  // namespace kjudge::board
