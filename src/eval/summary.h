#pragma once
// Scores a set of graded solutions: verdict counts, pass@k (unbiased estimator, averaged over
// problems, skipped and judge_error samples left out) overall, per group and per difficulty; with
// --sanitize and --repeat, what compute-sanitizer found and which solutions were flaky.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "eval/graded.h"

namespace kjudge {

struct SummaryOptions {
  std::vector<int> ks = {1};
  double wall_s = 0;  // of the whole run, as seen by the caller
  // The run's checks of issue 34: with them on, the summary has its "sanitizer" and "repeat"
  // sections even when no solution reached them.
  std::vector<std::string> sanitize;  // --sanitize tools
  int repeat = 1;                     // --repeat
};

nlohmann::json summarize(const std::vector<GradedSolution>& graded, const SummaryOptions& opt);

}  // namespace kjudge
