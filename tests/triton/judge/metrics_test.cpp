// TritonBench's metrics on fixed numbers: the speedup as a ratio of sums of medians with its
// bootstrap interval, and call / execution accuracy with their denominators.
#include "triton/judge/metrics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace kjudge::triton {
namespace {

TEST(TritonSpeedup, RatioOfSumsOfMedians) {
  // Medians 2 and 4 against 1 and 3: (2 + 4) / (1 + 3) = 1.5, not the mean of 2 and 4/3.
  TritonSpeedup s = triton_speedup({{2, 2, 9}, {4, 4, 4}}, {{1, 1, 1}, {3, 3, 0.5}});
  EXPECT_DOUBLE_EQ(s.estimate, 1.5);
  EXPECT_DOUBLE_EQ(s.reference_ms, 6);
  EXPECT_DOUBLE_EQ(s.candidate_ms, 4);
  EXPECT_EQ(s.sites, 2u);
  EXPECT_LE(s.low, s.estimate);
  EXPECT_GE(s.high, s.estimate);
}

TEST(TritonRoundSpeedup, AFirstProcessBiasCancelsInBalancedRounds) {
  // Same code on both sides, the first process of every round 1.5x slower. Always timing the
  // reference first (the old order) reads 1.5; alternating the order reads exactly 1.
  auto round = [](bool ref_first) {
    const double first = 1.5, second = 1.0;
    TritonRound r;
    r.reference_first = ref_first;
    r.reference = {{ref_first ? first : second}, {ref_first ? 2 * first : 2 * second}};
    r.candidate = {{ref_first ? second : first}, {ref_first ? 2 * second : 2 * first}};
    return r;
  };
  TritonSpeedup biased = triton_round_speedup({round(true), round(true), round(true), round(true)});
  EXPECT_NEAR(biased.estimate, 1.5, 1e-12);
  TritonSpeedup s = triton_round_speedup({round(true), round(false), round(true), round(false)});
  EXPECT_NEAR(s.estimate, 1.0, 1e-12);
  ASSERT_EQ(s.round_ratios.size(), 4u);
  EXPECT_NEAR(s.round_ratios[0], 1.5, 1e-12);
  EXPECT_NEAR(s.round_ratios[1], 1 / 1.5, 1e-12);
  // Every resample keeps two rounds of each order, so the bias cancels in each: a point. The t
  // interval measures the rounds around their order's mean: no spread there either.
  EXPECT_NEAR(s.t_low, 1.0, 1e-12);
  EXPECT_NEAR(s.t_high, 1.0, 1e-12);
  EXPECT_NEAR(s.low, 1.0, 1e-12);
  EXPECT_NEAR(s.high, 1.0, 1e-12);
  EXPECT_NEAR(s.reference_ms / s.candidate_ms, s.estimate, 1e-12);
  EXPECT_EQ(s.sites, 2u);
}

TEST(TritonRoundSpeedup, DriftBetweenRoundsWidensTheInterval) {
  // No position bias, but rounds that disagree: 2, 1, 4, 2 (reference-first ones: 2 and 4).
  std::vector<TritonRound> rounds;
  const double ratios[] = {2, 1, 4, 2};
  for (int k = 0; k < 4; ++k) {
    TritonRound r;
    r.reference_first = k % 2 == 0;
    r.reference = {{ratios[k], ratios[k], ratios[k]}};
    r.candidate = {{1, 1, 1}};
    rounds.push_back(r);
  }
  TritonSpeedup s = triton_round_speedup(rounds);
  EXPECT_NEAR(s.estimate, std::pow(16.0, 0.25), 1e-12);  // geometric mean of the four
  EXPECT_LT(s.low, s.estimate);
  EXPECT_GT(s.high, s.estimate);
  // The bootstrap stays within the rounds' range; the t interval of the mean log ratio, which
  // the reported one holds, reaches past it. Log ratios ln2 x (1, 2) reference-first and
  // ln2 x (0, 1) candidate-first: residuals ln2 / 2 around each order's mean, 2 degrees of
  // freedom, so s = ln2 / sqrt(2) and the half-width t(0.975, 2) s / sqrt(4).
  EXPECT_GE(s.bootstrap_low, 1.0);
  EXPECT_LE(s.bootstrap_high, 4.0);
  const double half = 4.302653 * std::log(2.0) / std::sqrt(2.0) / 2;
  EXPECT_NEAR(s.t_low, std::exp(std::log(2.0) - half), 1e-5);
  EXPECT_NEAR(s.t_high, std::exp(std::log(2.0) + half), 1e-5);
  EXPECT_DOUBLE_EQ(s.low, std::min(s.bootstrap_low, s.t_low));
  EXPECT_DOUBLE_EQ(s.high, std::max(s.bootstrap_high, s.t_high));
  // Deterministic.
  TritonSpeedup again = triton_round_speedup(rounds);
  EXPECT_EQ(again.low, s.low);
  EXPECT_EQ(again.high, s.high);
}

// The H100's case (2026-11-23): a reference against itself, three rounds of steady samples
// whose ratios are 1.011, 1.016, 1.002. The bootstrap alone said [1.002, 1.015], excluding 1.
TEST(TritonRoundSpeedup, ThreeRoundsOfASelfComparisonHoldOne) {
  std::vector<TritonRound> rounds;
  const double ratios[] = {1.0112, 1.0162, 1.0024};
  for (int k = 0; k < 3; ++k) {
    TritonRound r;
    r.reference_first = k % 2 == 0;
    r.reference = {std::vector<double>(30, 0.02 * ratios[k])};
    r.candidate = {std::vector<double>(30, 0.02)};
    rounds.push_back(r);
  }
  TritonSpeedup s = triton_round_speedup(rounds);
  EXPECT_GT(s.bootstrap_low, 1.0);
  EXPECT_LT(s.low, 1.0);
  EXPECT_GT(s.high, 1.0);
}

TEST(TritonRoundSpeedup, RefusesWhatCannotBeCompared) {
  EXPECT_THROW(triton_round_speedup({}), std::invalid_argument);
  TritonRound r;
  r.reference = {{1.0}, {1.0}};
  r.candidate = {{1.0}};
  EXPECT_THROW(triton_round_speedup({r}), std::invalid_argument);
  r.candidate = {{1.0}, {0.0}};
  EXPECT_THROW(triton_round_speedup({r}), std::invalid_argument);
  TritonRound one;
  one.reference = {{1.0}};
  one.candidate = {{1.0}};
  r.candidate = {{1.0}, {1.0}};
  EXPECT_THROW(triton_round_speedup({r, one}), std::invalid_argument);  // rounds differ in sites
}

TEST(TritonSpeedup, ConstantSamplesGiveAPointInterval) {
  TritonSpeedup s = triton_speedup({{2, 2, 2}}, {{1, 1, 1}});
  EXPECT_DOUBLE_EQ(s.estimate, 2);
  EXPECT_DOUBLE_EQ(s.low, 2);
  EXPECT_DOUBLE_EQ(s.high, 2);
}

TEST(TritonSpeedup, IntervalWidensWithNoiseAndIsDeterministic) {
  std::vector<double> ref, cand;
  for (int i = 0; i < 30; ++i) {
    ref.push_back(1.0 + 0.1 * (i % 7));
    cand.push_back(1.0 + 0.1 * ((i * 3) % 7));
  }
  TritonSpeedup a = triton_speedup({ref}, {cand});
  TritonSpeedup b = triton_speedup({ref}, {cand});
  EXPECT_EQ(a.low, b.low);
  EXPECT_EQ(a.high, b.high);
  EXPECT_DOUBLE_EQ(a.estimate, 1.0);  // the same values in another order: medians equal
  EXPECT_LT(a.low, 1.0);
  EXPECT_GT(a.high, 1.0);
  EXPECT_GT(a.low, 0.7);
  EXPECT_LT(a.high, 1.4);
  TritonSpeedup narrow = triton_speedup({ref}, {cand}, 0.5);
  EXPECT_GE(narrow.low, a.low);
  EXPECT_LE(narrow.high, a.high);
}

TEST(TritonSpeedup, RefusesWhatIsNotAMeasurement) {
  EXPECT_THROW(triton_speedup({}, {}), std::invalid_argument);
  EXPECT_THROW(triton_speedup({{1}}, {{1}, {1}}), std::invalid_argument);
  EXPECT_THROW(triton_speedup({{}}, {{1}}), std::invalid_argument);
  EXPECT_THROW(triton_speedup({{1}}, {{0}}), std::invalid_argument);
  EXPECT_THROW(triton_speedup({{NAN}}, {{1}}), std::invalid_argument);
  EXPECT_THROW(triton_speedup({{1}}, {{1}}, 1.0), std::invalid_argument);
}

TritonGraded g(const std::string& op, const std::string& ch, int diff, TritonVerdict v,
               bool call_ok, std::optional<double> speedup = std::nullopt) {
  return {op, ch, diff, v, call_ok, speedup};
}

TEST(TritonScores, AccuracyDenominators) {
  std::vector<TritonGraded> graded = {
      g("a", "G", 1, TritonVerdict::pass, true, 2.0),
      g("b", "G", 1, TritonVerdict::mismatch, true),
      g("c", "G", 2, TritonVerdict::call_error, false),
      g("d", "G", 2, TritonVerdict::reference_failed, false),  // call counted, exec not
      g("e", "G", 2, TritonVerdict::judge_error, false),       // counted nowhere
      g("f", "T", 3, TritonVerdict::pass, true, 0.5),
      g("f", "T", 3, TritonVerdict::timeout, false),
  };
  TritonScores s = score_triton(graded);
  EXPECT_EQ(s.all.judged, 6u);
  EXPECT_EQ(s.all.call_ok, 3u);
  EXPECT_EQ(s.all.exec_judged, 5u);
  EXPECT_EQ(s.all.exec_ok, 2u);
  EXPECT_EQ(s.all.reference_failed, 1u);
  EXPECT_EQ(s.all.judge_errors, 1u);
  auto j = s.all.to_json();
  EXPECT_DOUBLE_EQ(j["call_accuracy"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(j["exec_accuracy"].get<double>(), 0.4);
  EXPECT_EQ(j["speedup"]["n"], 2);
  EXPECT_DOUBLE_EQ(j["speedup"]["geomean"].get<double>(), 1.0);  // sqrt(2 * 0.5)
  EXPECT_DOUBLE_EQ(j["speedup"]["mean"].get<double>(), 1.25);    // upstream's number
  EXPECT_EQ(j["verdicts"]["pass"], 2);

  EXPECT_EQ(s.by_channel["G"].judged, 4u);
  EXPECT_EQ(s.by_channel["T"].exec_ok, 1u);
  EXPECT_EQ(s.by_difficulty["G/2"].judged, 2u);
  EXPECT_EQ(s.by_difficulty["G/2"].exec_judged, 1u);
  EXPECT_EQ(s.by_operator["T/f"].judged, 2u);
  EXPECT_DOUBLE_EQ(s.by_operator["T/f"].to_json()["exec_accuracy"].get<double>(), 0.5);
}

TEST(TritonScores, UnstableAndEmptyReferencesLeaveExecutionAccuracy) {
  TritonScores s = score_triton({g("a", "G", 1, TritonVerdict::pass, true),
                                 g("b", "G", 1, TritonVerdict::reference_unstable, true),
                                 g("c", "G", 1, TritonVerdict::no_output, true)});
  EXPECT_EQ(s.all.judged, 3u);
  EXPECT_EQ(s.all.call_ok, 3u);
  EXPECT_EQ(s.all.exec_judged, 1u);
  EXPECT_EQ(s.all.reference_unstable, 1u);
  EXPECT_EQ(s.all.no_output, 1u);
  auto j = s.all.to_json();
  EXPECT_DOUBLE_EQ(j["exec_accuracy"].get<double>(), 1.0);
  EXPECT_EQ(j["reference_unstable"], 1);
  EXPECT_EQ(j["no_output"], 1);
  EXPECT_EQ(j["verdicts"]["reference_unstable"], 1);
}

// A candidate whose timed calls gave other outputs than the reference's is judged, and wrong.
TEST(TritonScores, ATimedMismatchIsNotCorrect) {
  TritonGraded stale = g("a", "G", 1, TritonVerdict::timed_mismatch, true);
  TritonScores s = score_triton({stale, g("b", "G", 1, TritonVerdict::pass, true)});
  EXPECT_EQ(triton_verdict_name(TritonVerdict::timed_mismatch), "timed_mismatch");
  EXPECT_EQ(s.all.exec_judged, 2u);
  EXPECT_EQ(s.all.exec_ok, 1u);
  EXPECT_EQ(s.all.call_ok, 2u);
  EXPECT_EQ(s.all.to_json()["verdicts"]["timed_mismatch"], 1);
}

TEST(TritonScores, EmptyGroupsHaveNoAccuracy) {
  TritonScores s = score_triton({g("e", "G", 1, TritonVerdict::judge_error, false)});
  auto j = s.all.to_json();
  EXPECT_TRUE(j["call_accuracy"].is_null());
  EXPECT_TRUE(j["exec_accuracy"].is_null());
  EXPECT_TRUE(j["speedup"].is_null());
}

}  // namespace
}  // namespace kjudge::triton
