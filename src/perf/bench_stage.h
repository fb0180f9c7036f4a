#pragma once
// The benchmark stage of `kjudge evaluate|validate --benchmark` (issue 4), after the
// correctness stage: rebuild each passing solution and its problem's baseline (from the build
// cache), check the baseline still passes here, time both interleaved (perf/benchmarker.h) and
// journal each comparison in <run>/perf.jsonl, so --resume times only what is missing.
#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/problem.h"
#include "eval/evaluator.h"
#include "eval/graded.h"
#include "perf/benchmarker.h"

namespace kjudge {

struct BenchStageInput {
  const std::vector<Problem>* problems = nullptr;
  // The solutions' files, by (task_id, sample): the stage rebuilds them.
  const std::map<std::pair<std::string, int>, Solution>* solutions = nullptr;
  const std::vector<GradedSolution>* results = nullptr;  // the correctness verdicts
  EvalOptions eval;    // how to rebuild (the correctness stage's options)
  BenchOptions bench;  // how to time
  MachineInfo machine;
  std::filesystem::path run_dir;
  bool progress = true;
  const std::atomic<bool>* stop = nullptr;
  // A Slurm array task's filter (slurm/task.h): a line it refuses is not journaled. A
  // cancelled task's benchmarks die of Slurm's SIGTERM, which must not read as the solution's
  // failure; the resubmitted task times them again. Empty: every line is journaled.
  std::function<bool(const nlohmann::json&)> keep_line;
};

// Returns the summary's "performance" object: summarize_perf() of every judged solution plus
// runs, warmups, conditions (per GPU) and warnings.
nlohmann::json run_bench_stage(const BenchStageInput& in);

// perf.jsonl by (task_id, sample): one comparison per line, appended as each finishes; a torn
// last line (a kill in the middle of a write) is ignored, and timed again by a resumed stage.
std::map<std::pair<std::string, int>, nlohmann::json> read_perf_journal(
    const std::filesystem::path& path);

}  // namespace kjudge
