#pragma once
// A run's NAME-graded-solutions.jsonl, ComputeEval's own file of graded solutions
// (eval/computeeval_graded.h), written beside results.jsonl by the one summary writer
// (plan/run_summary.h) from the run's graded solutions, their files and problems, and with
// --benchmark the timings of perf.jsonl. NAME is the plan's datapack_name: the solutions pack's
// (gpt-4.1 for gpt-4.1-solutions.tar.gz), kjudge run's model's, "baseline" for validate.
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/problem.h"
#include "eval/graded.h"
#include "plan/run_plan.h"

namespace kjudge::plan {

// The solutions of a run by (task_id, sample).
using SolutionFiles = std::map<std::pair<std::string, int>, Solution>;

// Writes the file atomically and returns its path. A graded solution of a problem the plan does
// not hold is left out (it cannot be described); one whose files are unknown gets an empty
// FileSolution.
std::filesystem::path write_graded_solutions_file(const RunPlan& plan,
                                                  const std::vector<GradedSolution>& results,
                                                  const SolutionFiles* solutions);

}  // namespace kjudge::plan
