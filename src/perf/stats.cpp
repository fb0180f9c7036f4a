#include "perf/stats.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace kjudge {
namespace {

// Type 7 quantile of sorted values.
double quantile(const std::vector<double>& sorted, double p) {
  const double h = static_cast<double>(sorted.size() - 1) * p;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  if (lo + 1 >= sorted.size()) return sorted.back();
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[lo + 1] - sorted[lo]);
}

double median_of_sorted(const std::vector<double>& sorted) { return quantile(sorted, 0.5); }

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// Inverse of normal_cdf by bisection: a few dozen erfc calls per interval, exact to the last
// bits that matter here, and with no table of coefficients to get wrong.
double normal_quantile(double p) {
  double lo = -40, hi = 40;
  for (int i = 0; i < 200 && hi - lo > 1e-15; ++i) {
    const double mid = 0.5 * (lo + hi);
    (normal_cdf(mid) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

void check_times(const std::vector<double>& xs, const char* side) {
  if (xs.empty()) throw std::invalid_argument(std::string("no ") + side + " times");
  for (double x : xs) {
    if (!std::isfinite(x) || x <= 0) {
      throw std::invalid_argument(std::string(side) + " time " + std::to_string(x) +
                                  " is not finite and positive");
    }
  }
}

}  // namespace

Spread describe(std::vector<double> xs) {
  Spread s;
  if (xs.empty()) return s;
  double sum = 0;
  for (double x : xs) {
    if (!std::isfinite(x)) throw std::invalid_argument("describe: a value is not finite");
    sum += x;
  }
  std::sort(xs.begin(), xs.end());
  s.n = xs.size();
  s.mean = sum / static_cast<double>(s.n);
  s.min = xs.front();
  s.max = xs.back();
  s.median = median_of_sorted(xs);
  s.q1 = quantile(xs, 0.25);
  s.q3 = quantile(xs, 0.75);
  s.iqr = s.q3 - s.q1;
  for (double& x : xs) x = std::fabs(x - s.median);
  std::sort(xs.begin(), xs.end());
  s.mad = median_of_sorted(xs);
  return s;
}

RatioInterval speedup_interval(const std::vector<double>& baseline,
                               const std::vector<double>& solution, double confidence) {
  check_times(baseline, "baseline");
  check_times(solution, "solution");
  if (!(confidence > 0 && confidence < 1)) {
    throw std::invalid_argument("confidence must lie in (0, 1)");
  }
  std::vector<double> d;
  d.reserve(baseline.size() * solution.size());
  for (double b : baseline) {
    for (double s : solution) d.push_back(std::log(b) - std::log(s));
  }
  std::sort(d.begin(), d.end());

  RatioInterval r;
  r.confidence = confidence;
  r.estimate = std::exp(median_of_sorted(d));

  // Under no shift, U = #{d_ij > 0} has mean m/2 and variance n_b n_s (n_b + n_s + 1) / 12, and
  // [d_(C), d_(m+1-C)] misses the true shift with probability 2 P(U <= C - 1). The largest C
  // keeping that within 1 - confidence: P(U <= k) ~ Phi((k + 1/2 - m/2) / sigma) <= alpha/2.
  const double m = static_cast<double>(d.size());
  const double nb = static_cast<double>(baseline.size());
  const double ns = static_cast<double>(solution.size());
  const double sigma = std::sqrt(nb * ns * (nb + ns + 1) / 12.0);
  const double z = normal_quantile(1 - (1 - confidence) / 2);
  const double k = std::floor(m / 2 - 0.5 - z * sigma);
  // k < 0: even the full range does not reach the confidence asked for.
  const std::size_t c = k < 0 ? 1 : static_cast<std::size_t>(k) + 1;
  r.low = std::exp(d[c - 1]);
  r.high = std::exp(d[d.size() - c]);
  return r;
}

namespace {

// The continued fraction of the regularized incomplete beta function (Lentz's method, as in
// Numerical Recipes' betacf), for x < (a + 1) / (a + b + 2).
double beta_fraction(double a, double b, double x) {
  const double tiny = 1e-300;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (std::fabs(d) < tiny) d = tiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 300; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (std::fabs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    const double step = d * c;
    h *= step;
    if (std::fabs(step - 1) < 1e-15) break;
  }
  return h;
}

// I_x(a, b).
double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                a * std::log(x) + b * std::log1p(-x));
  if (x < (a + 1) / (a + b + 2)) return front * beta_fraction(a, b, x) / a;
  return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

// P(T <= t) for Student's t with df degrees of freedom.
double student_t_cdf(double t, double df) {
  const double tail = 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t));
  return t >= 0 ? 1 - tail : tail;
}

}  // namespace

double student_t_quantile(double p, double df) {
  if (!(p > 0 && p < 1)) throw std::invalid_argument("a t quantile needs p in (0, 1)");
  if (!(df >= 1) || !std::isfinite(df))
    throw std::invalid_argument("a t quantile needs at least 1 degree of freedom");
  if (p == 0.5) return 0;
  if (p < 0.5) return -student_t_quantile(1 - p, df);
  double lo = 0, hi = 1;
  while (student_t_cdf(hi, df) < p) hi *= 2;  // df = 1, p = 1 - 1e-12: about 3e11, 40 steps
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = (lo + hi) / 2;
    (student_t_cdf(mid, df) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

double geometric_mean(const std::vector<double>& xs) {
  if (xs.empty()) throw std::invalid_argument("geometric mean of no values");
  double sum = 0;
  for (double x : xs) {
    if (!std::isfinite(x) || x <= 0) {
      throw std::invalid_argument("geometric mean of a value that is not finite and positive: " +
                                  std::to_string(x));
    }
    sum += std::log(x);
  }
  return std::exp(sum / static_cast<double>(xs.size()));
}

double fast_p(const std::vector<std::optional<double>>& speedups, double p) {
  if (speedups.empty()) throw std::invalid_argument("fast_p of no solutions");
  std::size_t fast = 0;
  // Estimates come through exp(log b - log s): a speedup of exactly p may read as p + 1 ulp,
  // which must not count as "more than p".
  const double threshold = p * (1 + 1e-9);
  for (const auto& s : speedups) {
    if (s && *s > threshold) ++fast;
  }
  return static_cast<double>(fast) / static_cast<double>(speedups.size());
}

}  // namespace kjudge
