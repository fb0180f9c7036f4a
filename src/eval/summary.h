#pragma once
// Scores a set of graded solutions: verdict counts, pass@k (unbiased estimator, averaged over
// problems, skipped and judge_error samples left out) overall, per group and per difficulty.
#include <nlohmann/json.hpp>
#include <vector>

#include "eval/graded.h"

namespace kjudge {

struct SummaryOptions {
  std::vector<int> ks = {1};
  double wall_s = 0;  // of the whole run, as seen by the caller
};

nlohmann::json summarize(const std::vector<GradedSolution>& graded, const SummaryOptions& opt);

}  // namespace kjudge
