// KernelBench's metrics from kjudge's timing: the paired speedup and its interval, and per level
// the rates, the speedups and fast_p as KernelBench's analysis defines them (one sample per
// problem, p in 0, 0.5, 0.8, 1, 1.5, 2), with fast_p_confident beside.
#include "kernelbench/judge/metrics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace kjudge::kernelbench {
namespace {

std::vector<double> noisy(double base, int n, unsigned seed, double spread = 0.02) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> u(1 - spread, 1 + spread);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(base * u(g));
  return v;
}

TEST(KernelBenchSpeedup, TheSameTimesOnBothSidesGiveOneInsideItsInterval) {
  const Speedup s = paired_speedup(noisy(2.0, 100, 1), noisy(2.0, 100, 2));
  EXPECT_NEAR(s.estimate, 1.0, 0.01);
  EXPECT_LT(s.low, 1.0);
  EXPECT_GT(s.high, 1.0);
  EXPECT_EQ(s.pairs, 100u);
  EXPECT_NEAR(s.mean_ratio, 1.0, 0.01);
}

TEST(KernelBenchSpeedup, ATwiceFasterSolutionIsTwoWithANarrowInterval) {
  const Speedup s = paired_speedup(noisy(4.0, 50, 3), noisy(2.0, 50, 4));
  EXPECT_NEAR(s.estimate, 2.0, 0.03);
  EXPECT_GT(s.low, 1.9);
  EXPECT_LT(s.high, 2.1);
  EXPECT_LE(s.low, s.estimate);
  EXPECT_GE(s.high, s.estimate);
  // An outlier pair (a pause) moves the estimate little; the mean ratio more.
  std::vector<double> b = noisy(4.0, 50, 3), x = noisy(2.0, 50, 4);
  x[10] = 200;
  const Speedup o = paired_speedup(b, x);
  EXPECT_NEAR(o.estimate, 2.0, 0.05);
  EXPECT_LT(o.mean_ratio, 1.0);
}

TEST(KernelBenchSpeedup, FewPairsGiveTheirWholeRange) {
  const Speedup s = paired_speedup({2.0, 2.2}, {1.0, 1.0});
  EXPECT_NEAR(s.low, 2.0, 1e-12);
  EXPECT_NEAR(s.high, 2.2, 1e-12);
}

TEST(KernelBenchSpeedup, BadInputsAreRefused) {
  EXPECT_THROW(paired_speedup({}, {}), std::invalid_argument);
  EXPECT_THROW(paired_speedup({1.0}, {1.0, 2.0}), std::invalid_argument);
  EXPECT_THROW(paired_speedup({1.0}, {0.0}), std::invalid_argument);
  EXPECT_THROW(paired_speedup({1.0}, {NAN}), std::invalid_argument);
  EXPECT_THROW(paired_speedup({1.0}, {1.0}, 1.5), std::invalid_argument);
}

Graded g(int level, int problem, int sample, Verdict v, double sp = 0, double low = 0) {
  Graded x;
  x.level = level;
  x.problem = problem;
  x.sample = sample;
  x.verdict = v;
  if (sp > 0) {
    Speedup s;
    s.estimate = sp;
    s.low = low > 0 ? low : sp;
    s.high = sp * 1.1;
    x.eager = s;
  }
  return x;
}

TEST(KernelBenchSummary, FastPIsOverTheGreedySampleOfEveryChargedProblem) {
  const std::vector<Graded> all = {
      g(1, 1, 0, Verdict::correct, 2.5, 2.2),    // fast at every p
      g(1, 1, 1, Verdict::incorrect),            // not the greedy sample: not in fast_p
      g(1, 2, 0, Verdict::correct, 1.05, 0.97),  // faster than 1, not confidently
      g(1, 3, 0, Verdict::correct, 0.6, 0.55),
      g(1, 4, 0, Verdict::compile_error),
      g(1, 5, 0, Verdict::reference_failed),  // not charged: out of the denominator
      g(1, 6, 0, Verdict::correct),           // correct, not timed: counts for fast_0 only
      g(2, 1, 0, Verdict::hack),
  };
  const auto s = summarize(all);
  const auto& l1 = s["levels"]["level1"];
  EXPECT_EQ(l1["problems"], 5);  // 1, 2, 3, 4, 6
  EXPECT_EQ(l1["solutions"], 7);
  EXPECT_EQ(l1["charged"], 6);
  EXPECT_EQ(l1["correct"], 4);
  EXPECT_DOUBLE_EQ(l1["fast_p"]["0"].get<double>(), 4.0 / 5);
  EXPECT_DOUBLE_EQ(l1["fast_p"]["0.5"].get<double>(), 3.0 / 5);
  EXPECT_DOUBLE_EQ(l1["fast_p"]["0.8"].get<double>(), 2.0 / 5);
  EXPECT_DOUBLE_EQ(l1["fast_p"]["1"].get<double>(), 2.0 / 5);
  EXPECT_DOUBLE_EQ(l1["fast_p"]["1.5"].get<double>(), 1.0 / 5);
  EXPECT_DOUBLE_EQ(l1["fast_p"]["2"].get<double>(), 1.0 / 5);
  EXPECT_DOUBLE_EQ(l1["fast_p_confident"]["1"].get<double>(), 1.0 / 5);
  EXPECT_DOUBLE_EQ(l1["fast_p_confident"]["0.5"].get<double>(), 3.0 / 5);
  EXPECT_DOUBLE_EQ(l1["compiled_rate"].get<double>(), 5.0 / 6);
  EXPECT_EQ(l1["speedup_eager"]["n"], 3);
  EXPECT_NEAR(l1["speedup_eager"]["geomean"].get<double>(), std::cbrt(2.5 * 1.05 * 0.6), 1e-12);
  EXPECT_TRUE(l1["speedup_compile"].is_null());
  EXPECT_EQ(l1["verdicts"]["reference_failed"], 1);
  EXPECT_DOUBLE_EQ(l1["pass_at_k"]["pass@1"].get<double>(), (0.5 + 1 + 1 + 0 + 1) / 5);
  EXPECT_DOUBLE_EQ(s["levels"]["level2"]["fast_p"]["0"].get<double>(), 0.0);  // a hack fails
  EXPECT_EQ(s["all"]["solutions"], 8);
}

TEST(KernelBenchSummary, NothingChargedHasNoRates) {
  const auto s = summarize({g(1, 1, 0, Verdict::env_error)});
  EXPECT_TRUE(s["levels"]["level1"]["correct_rate"].is_null());
  EXPECT_TRUE(s["levels"]["level1"]["fast_p"]["1"].is_null());
}

}  // namespace
}  // namespace kjudge::kernelbench
