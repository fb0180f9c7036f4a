#include "perf/stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace kjudge {
namespace {

TEST(Describe, QuartilesAreRType7) {
  // R: quantile(c(1, 2, 3, 4), type = 7) -> 1, 1.75, 2.5, 3.25, 4; mad(x, constant = 1) -> 1.
  Spread s = describe({4, 1, 3, 2});
  EXPECT_EQ(s.n, 4u);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.q1, 1.75);
  EXPECT_DOUBLE_EQ(s.q3, 3.25);
  EXPECT_DOUBLE_EQ(s.iqr, 1.5);
  EXPECT_DOUBLE_EQ(s.mad, 1.0);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 4);

  // Odd n: the quartiles fall on order statistics. Deviations from 3: 2 1 0 4 7 -> median 2.
  s = describe({7, 1, 3, 10, 2});
  EXPECT_DOUBLE_EQ(s.mean, 4.6);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.q1, 2);
  EXPECT_DOUBLE_EQ(s.q3, 7);
  EXPECT_DOUBLE_EQ(s.iqr, 5);
  EXPECT_DOUBLE_EQ(s.mad, 2);

  // An outlier moves the mean, not the median, quartiles or MAD. R: quantile(c(1:9, 100)) ->
  // 3.25 and 7.75 for the quartiles; mad(c(1:9, 100), constant = 1) -> 2.5.
  s = describe({1, 2, 3, 4, 5, 6, 7, 8, 9, 100});
  EXPECT_DOUBLE_EQ(s.mean, 14.5);
  EXPECT_DOUBLE_EQ(s.median, 5.5);
  EXPECT_DOUBLE_EQ(s.q1, 3.25);
  EXPECT_DOUBLE_EQ(s.q3, 7.75);
  EXPECT_DOUBLE_EQ(s.mad, 2.5);
  EXPECT_DOUBLE_EQ(s.max, 100);
}

TEST(Describe, DegenerateInputs) {
  Spread s = describe({});
  EXPECT_EQ(s.n, 0u);
  EXPECT_EQ(s.median, 0);
  s = describe({3.5});
  EXPECT_EQ(s.n, 1u);
  EXPECT_DOUBLE_EQ(s.median, 3.5);
  EXPECT_DOUBLE_EQ(s.q1, 3.5);
  EXPECT_DOUBLE_EQ(s.q3, 3.5);
  EXPECT_DOUBLE_EQ(s.mad, 0);
  EXPECT_THROW(describe({1, std::numeric_limits<double>::quiet_NaN()}), std::invalid_argument);
  EXPECT_THROW(describe({std::numeric_limits<double>::infinity()}), std::invalid_argument);
}

TEST(SpeedupInterval, HodgesLehmannOnAHandCheckedCase) {
  // Pairwise ratios b/s: 2/1 2/2 4/1 4/2 = 2 1 4 2; median 2. Two runs a side is too few for a
  // 95% interval (the full range covers 1 - 2/6), so the interval is the full range.
  RatioInterval r = speedup_interval({2, 4}, {1, 2});
  EXPECT_DOUBLE_EQ(r.estimate, 2);
  EXPECT_DOUBLE_EQ(r.low, 1);
  EXPECT_DOUBLE_EQ(r.high, 4);
  EXPECT_DOUBLE_EQ(r.confidence, 0.95);

  r = speedup_interval({3}, {2});
  EXPECT_DOUBLE_EQ(r.estimate, 1.5);
  EXPECT_DOUBLE_EQ(r.low, 1.5);
  EXPECT_DOUBLE_EQ(r.high, 1.5);

  // Constant times: every ratio is 2.
  r = speedup_interval(std::vector<double>(10, 10.0), std::vector<double>(10, 5.0));
  EXPECT_DOUBLE_EQ(r.estimate, 2);
  EXPECT_DOUBLE_EQ(r.low, 2);
  EXPECT_DOUBLE_EQ(r.high, 2);
}

TEST(SpeedupInterval, TakesTheTabulatedOrderStatistics) {
  // log b_i = i and log s_j = j / 10 (i, j in 0..9): the 100 differences are k / 10 for
  // k = -9..90, so the C-th smallest is (C - 10) / 10. For 10 runs a side at 95% the Mann-Whitney
  // table's critical U is 23, so C = 24: [1.4, 6.7]; the median is (4.0 + 4.1) / 2.
  std::vector<double> b, s;
  for (int i = 0; i < 10; ++i) {
    b.push_back(std::exp(i));
    s.push_back(std::exp(i / 10.0));
  }
  RatioInterval r = speedup_interval(b, s);
  EXPECT_NEAR(std::log(r.estimate), 4.05, 1e-12);
  EXPECT_NEAR(std::log(r.low), 1.4, 1e-12);
  EXPECT_NEAR(std::log(r.high), 6.7, 1e-12);

  // Five a side: the table's critical U is 2, so C = 3. With log b_i = i and log s_j = j / 5
  // (i, j in 0..4) the 25 differences are (5i - j) / 5, all distinct.
  b.clear();
  s.clear();
  for (int i = 0; i < 5; ++i) {
    b.push_back(std::exp(i));
    s.push_back(std::exp(i / 5.0));
  }
  r = speedup_interval(b, s);
  // 5i - j sorted is -4, -3, ..., 20: the 3rd is -2, the 23rd 18, the 13th (median) 8.
  EXPECT_NEAR(std::log(r.low), -2 / 5.0, 1e-12);
  EXPECT_NEAR(std::log(r.high), 18 / 5.0, 1e-12);
  EXPECT_NEAR(std::log(r.estimate), 8 / 5.0, 1e-12);

  // A lower confidence narrows it: at 50%, C = floor(12.5 - 0.5 - 0.6745 * 4.787) + 1 = 9.
  r = speedup_interval(b, s, 0.5);
  EXPECT_DOUBLE_EQ(r.confidence, 0.5);
  EXPECT_NEAR(std::log(r.low), 4 / 5.0, 1e-12);
  EXPECT_NEAR(std::log(r.high), 12 / 5.0, 1e-12);
}

TEST(SpeedupInterval, IdenticalSamplesContainOne) {
  std::vector<double> x = {1.00, 1.02, 0.99, 1.01, 1.03, 0.98, 1.00, 1.04, 0.97, 1.01};
  RatioInterval r = speedup_interval(x, x);
  EXPECT_NEAR(r.estimate, 1.0, 1e-12);
  EXPECT_LT(r.low, 1.0);
  EXPECT_GT(r.high, 1.0);
}

TEST(SpeedupInterval, ClearlySeparatedSamplesExcludeOne) {
  std::vector<double> base = {2.00, 2.05, 1.98, 2.02, 2.10, 1.95, 2.01};
  std::vector<double> fast = {1.00, 1.03, 0.98, 1.01, 1.05, 0.99, 1.02};
  RatioInterval r = speedup_interval(base, fast);
  EXPECT_NEAR(r.estimate, 2.0, 0.05);
  EXPECT_GT(r.low, 1.0);
  EXPECT_LE(r.low, r.estimate);
  EXPECT_GE(r.high, r.estimate);
}

TEST(SpeedupInterval, ATenPercentSlowerSolution) {
  std::mt19937_64 rng(42);
  std::normal_distribution<double> noise(0.0, 0.005);
  std::vector<double> base, sol;
  for (int i = 0; i < 20; ++i) {
    base.push_back(3.0 * (1 + noise(rng)));
    sol.push_back(3.3 * (1 + noise(rng)));
  }
  RatioInterval r = speedup_interval(base, sol);
  EXPECT_NEAR(r.estimate, 1 / 1.1, 0.01);
  EXPECT_LT(r.high, 1.0);
  // Half a percent of noise a run, 20 runs a side: the interval is a few tenths of a percent.
  EXPECT_LT(r.high / r.low, 1.01);
}

TEST(SpeedupInterval, SwappingSidesGivesTheReciprocal) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> t(0.0, 0.1);
  std::vector<double> a, b;
  for (int i = 0; i < 7; ++i) a.push_back(t(rng));
  for (int i = 0; i < 12; ++i) b.push_back(1.3 * t(rng));
  RatioInterval ab = speedup_interval(a, b), ba = speedup_interval(b, a);
  EXPECT_NEAR(ab.estimate * ba.estimate, 1.0, 1e-12);
  EXPECT_NEAR(ab.low * ba.high, 1.0, 1e-12);
  EXPECT_NEAR(ab.high * ba.low, 1.0, 1e-12);
}

// Coverage by simulation: with no true difference, the 95% interval should contain 1 about
// 1 - 2 P(U <= 23) = 95.7% of the time for 10 runs a side (the exact null distribution), and the
// true ratio as often when there is one.
TEST(SpeedupInterval, CoverageMatchesTheConfidence) {
  std::mt19937_64 rng(2024);
  std::lognormal_distribution<double> t(0.0, 0.05);
  const int trials = 4000;
  int cover_same = 0, cover_shift = 0;
  for (int trial = 0; trial < trials; ++trial) {
    std::vector<double> b, s, fast;
    for (int i = 0; i < 10; ++i) {
      b.push_back(t(rng));
      s.push_back(t(rng));
      fast.push_back(t(rng) / 1.25);
    }
    RatioInterval same = speedup_interval(b, s);
    if (same.low <= 1.0 && 1.0 <= same.high) ++cover_same;
    RatioInterval shift = speedup_interval(b, fast);
    if (shift.low <= 1.25 && 1.25 <= shift.high) ++cover_shift;
  }
  RecordProperty("coverage_same", std::to_string(cover_same / double(trials)));
  RecordProperty("coverage_shift", std::to_string(cover_shift / double(trials)));
  // Binomial standard error at 4000 trials is 0.0032: these bounds are about 4 of them.
  EXPECT_NEAR(cover_same / double(trials), 0.957, 0.013);
  EXPECT_NEAR(cover_shift / double(trials), 0.957, 0.013);
}

TEST(SpeedupInterval, RejectsBadInput) {
  EXPECT_THROW(speedup_interval({}, {1}), std::invalid_argument);
  EXPECT_THROW(speedup_interval({1}, {}), std::invalid_argument);
  EXPECT_THROW(speedup_interval({1, 0}, {1}), std::invalid_argument);
  EXPECT_THROW(speedup_interval({1}, {-1}), std::invalid_argument);
  EXPECT_THROW(speedup_interval({1}, {std::numeric_limits<double>::quiet_NaN()}),
               std::invalid_argument);
  EXPECT_THROW(speedup_interval({std::numeric_limits<double>::infinity()}, {1}),
               std::invalid_argument);
  EXPECT_THROW(speedup_interval({1}, {1}, 0.0), std::invalid_argument);
  EXPECT_THROW(speedup_interval({1}, {1}, 1.0), std::invalid_argument);
}

TEST(GeometricMean, KnownValuesAndErrors) {
  EXPECT_DOUBLE_EQ(geometric_mean({1, 4}), 2);
  EXPECT_NEAR(geometric_mean({0.25, 4}), 1, 1e-12);
  EXPECT_NEAR(geometric_mean({2, 8, 4}), 4, 1e-12);
  EXPECT_NEAR(geometric_mean({0.5, 2}), 1, 1e-12);
  EXPECT_DOUBLE_EQ(geometric_mean({3}), 3);
  EXPECT_THROW(geometric_mean({}), std::invalid_argument);
  EXPECT_THROW(geometric_mean({1, 0}), std::invalid_argument);
  EXPECT_THROW(geometric_mean({1, -2}), std::invalid_argument);
  EXPECT_THROW(geometric_mean({std::numeric_limits<double>::infinity()}), std::invalid_argument);
  EXPECT_THROW(geometric_mean({std::numeric_limits<double>::quiet_NaN()}), std::invalid_argument);
}

TEST(FastP, CountsCorrectAndFasterOverAll) {
  std::vector<std::optional<double>> s = {2.0, std::nullopt, 1.0, 1.5, 0.5};
  EXPECT_DOUBLE_EQ(fast_p(s, 1.0), 2 / 5.0) << "1.0 is not faster than 1.0";
  EXPECT_DOUBLE_EQ(fast_p(s, 1.5), 1 / 5.0);
  EXPECT_DOUBLE_EQ(fast_p(s, 0.0), 4 / 5.0) << "the incorrect one never counts";
  EXPECT_DOUBLE_EQ(fast_p(s, 3.0), 0);
  EXPECT_DOUBLE_EQ(fast_p({std::nullopt}, 0.0), 0);
  // exp(log 10 - log 5) is 2 + 1 ulp: exactly twice as fast is not "more than 2x".
  EXPECT_DOUBLE_EQ(fast_p({std::exp(std::log(10.0) - std::log(5.0))}, 2.0), 0);
  EXPECT_DOUBLE_EQ(fast_p({2.001}, 2.0), 1);
  EXPECT_THROW(fast_p({}, 1.0), std::invalid_argument);
}

// Against R's qt() to the printed digits.
TEST(StudentT, QuantilesMatchTheTables) {
  EXPECT_NEAR(student_t_quantile(0.975, 1), 12.706205, 1e-5);
  EXPECT_NEAR(student_t_quantile(0.975, 2), 4.302653, 1e-5);
  EXPECT_NEAR(student_t_quantile(0.975, 3), 3.182446, 1e-5);
  EXPECT_NEAR(student_t_quantile(0.975, 10), 2.228139, 1e-5);
  EXPECT_NEAR(student_t_quantile(0.95, 1), 6.313752, 1e-5);
  EXPECT_NEAR(student_t_quantile(0.995, 4), 4.604095, 1e-5);
  EXPECT_NEAR(student_t_quantile(0.975, 1000), 1.962339, 1e-5);
  EXPECT_NEAR(student_t_quantile(0.025, 3), -3.182446, 1e-5);
  EXPECT_DOUBLE_EQ(student_t_quantile(0.5, 7), 0);
  EXPECT_THROW(student_t_quantile(1, 3), std::invalid_argument);
  EXPECT_THROW(student_t_quantile(0.9, 0.5), std::invalid_argument);
}

}  // namespace
}  // namespace kjudge
