#pragma once
// KernelBench's metrics, from kjudge's timing: the speedup of one solution from its interleaved
// pairs with a confidence interval, and per level the correctness, the speedups over eager
// PyTorch and over torch.compile (mean, geometric mean), fast_p at KernelBench's thresholds
// (scripts/benchmark_eval_analysis.py: p = 0, 0.5, 0.8, 1, 1.5, 2) and fast_p_confident (the
// interval's lower bound above p, so noise around 1.00 does not count as faster).
//
// As KernelBench's analysis does, the per-problem rates take one sample per problem, sample 0
// (the greedy one; the lowest sample where there is no 0), and a problem with no charged result
// is not in the denominator (its reference failed here, the machine could not run it). fast_p is
// then the share of those problems both correct and faster than p x; fast_0 is the correctness
// rate, timed or not.
#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "kernelbench/judge/verdict.h"

namespace kjudge::kernelbench {

// KernelBench's thresholds.
inline const std::vector<double> kFastP = {0.0, 0.5, 0.8, 1.0, 1.5, 2.0};

struct Speedup {
  double estimate = 0;  // exp of the Hodges-Lehmann estimate of the pairs' log ratios
  double low = 0, high = 0, confidence = 0.95;
  std::size_t pairs = 0;
  double baseline_mean_ms = 0, solution_mean_ms = 0;
  double mean_ratio = 0;  // KernelBench's own figure: mean baseline time / mean solution time
};

// The speedup of the solution over the baseline from paired times (pair i: both measured on the
// same fresh inputs, one right after the other): the ratios baseline_i / solution_i, taken in
// logs; the estimate is the Hodges-Lehmann estimate (the median of the Walsh averages), the
// interval the Wilcoxon signed-rank one (the normal approximation's C-th smallest and largest
// Walsh average; [min, max] where the pairs are too few for any C). Distribution-free and
// deterministic. Throws std::invalid_argument on no pairs, sides of different lengths, a time
// that is not finite and positive, more than 5000 pairs, or a confidence outside (0, 1).
Speedup paired_speedup(const std::vector<double>& baseline, const std::vector<double>& solution,
                       double confidence = 0.95);

// One judged solution, as the summary needs it.
struct Graded {
  int level = 0;
  int problem = 0;
  int sample = 0;
  Verdict verdict = Verdict::judge_error;
  std::optional<Speedup> eager, compiled;  // correct and timed
  bool hack_found = false;                 // any hack finding (whatever the policy made of it)
};

// Per level ("level1" ...) and "all": counts by verdict, compiled and correct rates, the
// speedups, fast_p, fast_p_confident, both over eager and over torch.compile, and pass@k of
// correctness where problems have several samples.
nlohmann::ordered_json summarize(const std::vector<Graded>& graded);

}  // namespace kjudge::kernelbench
