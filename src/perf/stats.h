#pragma once
// Statistics of benchmark timings: the spread of one side's runs, and the speedup of a solution
// over the baseline with a distribution-free confidence interval.
#include <cstddef>
#include <optional>
#include <vector>

namespace kjudge {

// Quartiles by linear interpolation between order statistics (R's quantile type 7, numpy's
// default); mad is the raw median absolute deviation from the median, not scaled by 1.4826.
struct Spread {
  std::size_t n = 0;
  double mean = 0, median = 0, q1 = 0, q3 = 0, iqr = 0, mad = 0, min = 0, max = 0;
};

// All zeros (n = 0) for no values; throws std::invalid_argument on a non-finite value.
Spread describe(std::vector<double> xs);

struct RatioInterval {
  double estimate = 0, low = 0, high = 0, confidence = 0.95;
};

// Speedup = baseline time / solution time. The estimate is exp of the Hodges-Lehmann shift
// between log(baseline) and log(solution): the median of all n_b * n_s pairwise differences
// log(b_i) - log(s_j). The interval is the Mann-Whitney one (Hollander & Wolfe 4.3): the C-th
// smallest and C-th largest pairwise difference, C from the normal approximation to the null
// distribution of U with continuity correction. Where the samples are too small for any C >= 1,
// the interval is [min, max] of the pairwise ratios and covers less than `confidence`.
// Deterministic: no resampling. Throws std::invalid_argument on an empty side, a time that is
// not finite and positive, or a confidence outside (0, 1).
RatioInterval speedup_interval(const std::vector<double>& baseline,
                               const std::vector<double>& solution, double confidence = 0.95);

// Of positive values; throws std::invalid_argument on none or on a value that is not finite
// and positive. (ComputeEval's own version divides by the count of all solutions while
// multiplying only the timed ones.)
double geometric_mean(const std::vector<double>& xs);

// The p-quantile of Student's t distribution with `df` degrees of freedom (p in (0, 1), df >= 1):
// the t such that P(T <= t) = p. From the regularized incomplete beta function, by bisection,
// to about 1e-10. Throws std::invalid_argument outside those ranges.
double student_t_quantile(double p, double df);

// The share of `speedups` (one per judged solution; nullopt = incorrect or not timed) that are
// correct and faster than the baseline by more than p: count(s && *s > p) / size. Throws
// std::invalid_argument on an empty list, whose share is undefined.
double fast_p(const std::vector<std::optional<double>>& speedups, double p);

}  // namespace kjudge
