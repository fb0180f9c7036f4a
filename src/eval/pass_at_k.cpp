#include "eval/pass_at_k.h"

#include <stdexcept>
#include <string>

namespace kjudge {

double pass_at_k(int n, int c, int k) {
  if (n < 1 || c < 0 || c > n || k < 1 || k > n) {
    throw std::invalid_argument("pass@k needs 0 <= c <= n and 1 <= k <= n (n=" + std::to_string(n) +
                                ", c=" + std::to_string(c) + ", k=" + std::to_string(k) + ")");
  }
  // Every draw of k contains a passing sample.
  if (n - c < k) return 1.0;
  // C(n-c, k) / C(n, k) = prod_{i=n-c+1}^{n} (1 - k/i): a product of factors in (0, 1] instead
  // of a ratio of binomials that overflows doubles long before n reaches the hundreds.
  double fail = 1.0;
  for (int i = n - c + 1; i <= n; ++i) fail *= 1.0 - static_cast<double>(k) / i;
  return 1.0 - fail;
}

std::optional<double> mean_pass_at_k(const std::vector<std::pair<int, int>>& per_problem, int k) {
  if (per_problem.empty()) return std::nullopt;
  double sum = 0;
  for (const auto& [n, c] : per_problem) {
    if (n < k) return std::nullopt;
    sum += pass_at_k(n, c, k);
  }
  return sum / static_cast<double>(per_problem.size());
}

}  // namespace kjudge
