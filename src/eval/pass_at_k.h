#pragma once
// The unbiased pass@k estimator of Chen et al. 2021 ("Evaluating Large Language Models Trained
// on Code"), as ComputeEval reports it.
#include <optional>
#include <utility>
#include <vector>

namespace kjudge {

// Probability that at least one of k samples drawn without replacement from n samples, c of
// which pass, passes: 1 - C(n-c, k) / C(n, k). Needs 0 <= c <= n and 1 <= k <= n; throws
// std::invalid_argument otherwise.
double pass_at_k(int n, int c, int k);

// Mean of pass_at_k over problems, each given as (n, c). nullopt when there are no problems or
// some problem has fewer than k samples: its estimate would be undefined, and averaging only the
// others would silently change what the number means.
std::optional<double> mean_pass_at_k(const std::vector<std::pair<int, int>>& per_problem, int k);

}  // namespace kjudge
