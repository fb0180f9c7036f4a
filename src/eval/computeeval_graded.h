#pragma once
// ComputeEval's own record of a graded solution (compute_eval/data/data_model.py, GradedSolution),
// which its evaluator writes as NAME-graded-solutions.jsonl and reads back with
// read_graded_solutions: kjudge writes the same file in every run directory, so ComputeEval's
// tools and a user's scripts written for them load kjudge's results (docs/computeeval.md).
//
// One line per graded solution: task_id, passed, skipped, solution (ComputeEval's FileSolution,
// plus the extras it allows: sample and datapack_name), problem (ComputeEval's Problem as the pack
// holds it, except its hidden test files: no run file of kjudge carries them, and ComputeEval's
// reader takes none as its default), build_output, test_output, benchmark_output, solution_time,
// baseline_time and speedup (--benchmark: medians in ms), solution_metrics and baseline_metrics
// (null: kjudge's profile records are not ComputeEval's), and "kjudge" (ignored by ComputeEval's
// reader): the verdict, its detail and the sample.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/problem.h"
#include "eval/graded.h"

namespace kjudge {

// A solution's timing against its baseline (a perf.jsonl line of --benchmark), in ComputeEval's
// terms: median times in ms and baseline / solution.
struct ComputeEvalTiming {
  std::optional<double> solution_ms;
  std::optional<double> baseline_ms;
  std::optional<double> speedup;
  std::string not_timed;  // why not, in words; empty when timed
};

// Reads ComputeEval's terms from one perf.jsonl line (docs/json-schemas.md).
ComputeEvalTiming computeeval_timing(const nlohmann::json& perf_line);

// ComputeEval's verdict flags for kjudge's verdicts: passed is pass; skipped is a problem this
// machine cannot judge (skipped) or a fault of the machine (judge_error), neither of which is the
// model's.
bool computeeval_skipped(Verdict v);

// The file's name for a pack named `datapack_name`, as ComputeEval names it.
std::string computeeval_graded_file_name(const std::string& datapack_name);

// One line of the file. `solution` may be null (a skip decided without one): an empty
// FileSolution of the task is written.
nlohmann::ordered_json computeeval_graded_json(const GradedSolution& graded, const Problem& problem,
                                               const Solution* solution,
                                               const std::string& datapack_name,
                                               const ComputeEvalTiming* timing);

}  // namespace kjudge
