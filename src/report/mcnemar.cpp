#include "report/mcnemar.h"

#include <algorithm>
#include <cmath>

namespace kjudge::report {

double mcnemar_exact_p(int b, int c) {
  const int n = b + c;
  if (n <= 0) return 1.0;
  const int k = std::min(b, c);
  // P(X <= k) for X ~ Binomial(n, 1/2), summed in log space: C(n, i) / 2^n overflows doubles
  // long before n reaches the size of a large benchmark.
  const double log_half_n = -n * std::log(2.0);
  double tail = 0;
  for (int i = 0; i <= k; ++i)
    tail += std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) +
                     log_half_n);
  return std::min(1.0, 2.0 * tail);
}

}  // namespace kjudge::report
