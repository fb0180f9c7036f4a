// The plain C++ rules the task harness and the judge share (harness/kjudge/): the tolerance
// check, the statistics and the stopping rule, the seeds, the names of the calls' NVTX ranges.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <vector>

#include "kjudge/bench_stats.h"
#include "kjudge/call_marks.h"
#include "kjudge/compare.h"
#include "kjudge/placement.h"
#include "kjudge/seeds.h"
#include "kjudge/spec.h"

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

kj::CompareResult cmp(const std::vector<double>& got, const std::vector<double>& want,
                      kj::Tolerance tol) {
  return kj::compare_values(
      static_cast<std::int64_t>(got.size()), [&](std::int64_t i) { return got[i]; },
      [&](std::int64_t i) { return want[i]; }, tol);
}

TEST(Compare, AtolPlusRtolTimesExpected) {
  kj::Tolerance tol{1e-3, 1e-2};
  EXPECT_TRUE(cmp({1.0 + 0.011 - 1e-9}, {1.0}, tol).ok);  // 0.011 = 1e-3 + 1e-2 * 1
  EXPECT_FALSE(cmp({1.0 + 0.0111}, {1.0}, tol).ok);
  EXPECT_TRUE(cmp({100.9}, {100.0}, tol).ok) << "rtol scales with the expected value";
  EXPECT_FALSE(cmp({0.9}, {0.0}, tol).ok);
  EXPECT_TRUE(cmp({2.0}, {2.0}, {0, 0}).ok) << "exact tolerance";
}

TEST(Compare, NaNAndInfNeverPass) {
  kj::Tolerance loose{1e300, 1e300};
  for (double bad : {kNaN, kInf, -kInf}) {
    auto r = cmp({1.0, bad, 3.0}, {1.0, 2.0, 3.0}, loose);
    EXPECT_FALSE(r.ok) << bad;
    EXPECT_EQ(r.bad, 1);
    ASSERT_EQ(r.first.size(), 1u);
    EXPECT_EQ(r.first[0].index, 1);
    EXPECT_FALSE(r.reference_fault);
  }
}

TEST(Compare, AReferenceNaNIsTheTasksFault) {
  auto r = cmp({1.0, 2.0}, {1.0, kNaN}, {1, 1});
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.reference_fault);
  EXPECT_NE(r.error.find("index 1"), std::string::npos);
}

TEST(Compare, KeepsTheFirstFiveMismatchesAndCountsAll) {
  std::vector<double> got(100, 1.0), want(100, 0.0);
  auto r = cmp(got, want, {0.5, 0});
  EXPECT_EQ(r.bad, 100);
  ASSERT_EQ(r.first.size(), 5u);
  EXPECT_EQ(r.first[4].index, 4);
  EXPECT_DOUBLE_EQ(r.max_abs_error, 1.0);
}

TEST(BenchStats, SummaryFigures) {
  kj::RunStats s = kj::summarize_runs({4, 1, 3, 2});
  EXPECT_EQ(s.runs, 4);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.best, 1);
  EXPECT_DOUBLE_EQ(s.worst, 4);
  EXPECT_NEAR(s.std, std::sqrt(5.0 / 3.0), 1e-12);  // sample standard deviation
  EXPECT_NEAR(s.err, s.std / 2, 1e-12);
  EXPECT_EQ(kj::summarize_runs({}).runs, 0);
  EXPECT_DOUBLE_EQ(kj::summarize_runs({7}).std, 0);
}

TEST(StopRule, NeedsTheMinimumThenStopsWhenPrecise) {
  kj::StopRule rule;  // 10 runs, 0.1 %, 10 s timed, 60 s wall, 1000 runs
  EXPECT_EQ(rule.min_runs, 10);
  const std::vector<double> nine(9, 100.0), ten(10, 100.0);
  EXPECT_EQ(kj::should_stop(rule, nine, 0, 0), kj::StopReason::none);  // precise, but too few
  EXPECT_EQ(kj::should_stop(rule, ten, 0, 0), kj::StopReason::precise);
  // 1 % noise: err/mean = 0.0082 / sqrt(10) > 0.1 %: go on.
  EXPECT_EQ(kj::should_stop(rule, {99, 101, 100, 99, 101, 100, 99, 101, 100, 100}, 0, 0),
            kj::StopReason::none);
}

TEST(StopRule, NoisyRunsStopAtABudget) {
  kj::StopRule rule;
  std::vector<double> noisy;
  for (int i = 0; i < 50; ++i) noisy.push_back(i % 2 ? 150 : 50);
  EXPECT_EQ(kj::should_stop(rule, noisy, 1, 1), kj::StopReason::none);
  EXPECT_EQ(kj::should_stop(rule, noisy, 10, 11), kj::StopReason::timed_budget);
  EXPECT_EQ(kj::should_stop(rule, noisy, 1, 60), kj::StopReason::wall_budget);
  rule.max_runs = 50;
  EXPECT_EQ(kj::should_stop(rule, noisy, 0, 0), kj::StopReason::max_runs);
}

TEST(StopRule, WallBudgetOverridesTheMinimumForVerySlowKernels) {
  kj::StopRule rule;
  EXPECT_EQ(kj::should_stop(rule, {70e9}, 70, 70), kj::StopReason::wall_budget);
  EXPECT_EQ(kj::should_stop(rule, {1e9}, 1, 1), kj::StopReason::none);
  // Below the minimum, the timed budget ends a benchmark of 4 s calls after 3 of them.
  EXPECT_EQ(kj::should_stop(rule, {4e9, 4e9}, 8, 8), kj::StopReason::none);
  EXPECT_EQ(kj::should_stop(rule, {4e9, 4e9, 4e9}, 12, 12), kj::StopReason::timed_budget);
}

TEST(StopRule, PreciseEnoughAfterRoughlyTheExpectedNumberOfRuns) {
  // With 2 % noise per run, err/mean < 0.1 % needs about (0.02 / 0.001)^2 = 400 runs.
  kj::StopRule rule;
  std::vector<double> xs;
  kj::StopReason why = kj::StopReason::none;
  for (int i = 0; why == kj::StopReason::none; ++i) {
    xs.push_back(100 * (1 + 0.02 * (i % 2 ? 1 : -1)));
    why = kj::should_stop(rule, xs, 0, 0);
  }
  EXPECT_EQ(why, kj::StopReason::precise);
  EXPECT_GT(xs.size(), 350u);
  EXPECT_LT(xs.size(), 450u);
}

TEST(Seeds, CantorPairingAsGpuMode) {
  // GPU MODE: _combine(a, b) = a + (a + b)(a + b + 1) / 2.
  auto combine = [](std::uint64_t a, std::uint64_t b) { return a + (a + b) * (a + b + 1) / 2; };
  for (std::uint64_t a : {0ull, 1ull, 42ull, 4242ull, 123456789ull})
    for (std::uint64_t b : {0ull, 7ull, 2147483647ull})
      EXPECT_EQ(kj::combine_seed(a, b), combine(a, b)) << a << " " << b;
  EXPECT_NE(kj::combine_seed(1, 2), kj::combine_seed(2, 1));
  // No overflow trap, just wrapping, for huge values.
  EXPECT_NO_THROW(kj::combine_seed(~0ull, ~0ull));
}

TEST(Seeds, RepetitionsGetUnrelatedSeeds) {
  EXPECT_EQ(kj::repetition_seed(42, 0), 42u) << "repetition 0 is the case itself";
  std::set<std::uint64_t> seen;
  for (std::uint64_t r = 0; r < 1000; ++r) seen.insert(kj::repetition_seed(42, r));
  EXPECT_EQ(seen.size(), 1000u);
  EXPECT_NE(kj::repetition_seed(42, 1), kj::repetition_seed(43, 1));
}

TEST(Spec, ParsesCaseLines) {
  kj::Spec s = kj::Spec::parse("size: 1024; seed: 42; dtype: fp16");
  EXPECT_EQ(s.get_int("size"), 1024);
  EXPECT_EQ(s.seed(), 42u);
  EXPECT_EQ(s.get_str("dtype"), "fp16");
  EXPECT_THROW(s.get_int("dtype"), std::runtime_error);
  EXPECT_THROW(s.get_int("rows"), std::runtime_error);
  EXPECT_THROW(kj::Spec::parse("size 1024"), std::runtime_error);
  EXPECT_EQ(kj::Spec::parse("size: 3").seed(), 0u);
  s.set_seed(7);
  EXPECT_EQ(s.seed(), 7u);
  EXPECT_EQ(s.text(), "size: 1024; seed: 42; dtype: fp16");
}

TEST(CallMarks, TimedNamesRoundTripAsTheProfilerRecordsThem) {
  std::uint64_t b = 99, r = 99;
  EXPECT_EQ(kj::timed_mark(2, 17), "timed 2 17");
  ASSERT_TRUE(kj::parse_timed_mark("kjudge::timed 2 17", &b, &r));
  EXPECT_EQ(b, 2u);
  EXPECT_EQ(r, 17u);
  ASSERT_TRUE(kj::parse_timed_mark("kjudge::" + kj::timed_mark(0, 123456789), &b, &r));
  EXPECT_EQ(r, 123456789u);
  EXPECT_TRUE(kj::is_untimed_mark("kjudge::untimed"));
  EXPECT_FALSE(kj::is_untimed_mark("untimed")) << "the global domain is not the harness's";
}

TEST(CallMarks, AnythingElseIsNotATimedCall) {
  std::uint64_t b = 0, r = 0;
  for (const char* name :
       {"timed 2 17", "other::timed 2 17", "kjudge::timed 2", "kjudge::timed 2 17 ",
        "kjudge::timed 2 17x", "kjudge::timed -2 17", "kjudge::timed 02 17", "kjudge::timed  2 17",
        "kjudge::timed 2 +17", "kjudge::untimed", "custom_kernel", ""})
    EXPECT_FALSE(kj::parse_timed_mark(name, &b, &r)) << name;
}

// The harness runs only on a GPU (tests/gpu/run-task-checks.sh); this guards, on the CPU, the
// two lines the judge's analysis depends on: every timed call is checked (benchmark mode too,
// not only the first repetition) and carries its timed mark.
TEST(HarnessSource, EveryTimedCallIsCheckedAndMarked) {
  std::ifstream in(std::string(KJUDGE_SOURCE_DIR) + "/harness/kjudge_harness.cu");
  ASSERT_TRUE(in);
  std::stringstream text;
  text << in.rdbuf();
  const std::string src = text.str();
  EXPECT_NE(src.find("call_once(cases[i], rep, true, l2, a, b, kj::timed_mark(i, rep))"),
            std::string::npos);
  EXPECT_EQ(src.find("rep == 0"), std::string::npos) << "a check for the first call only";
  EXPECT_EQ(src.find("recheck"), std::string::npos);
}

}  // namespace

// kj::Arena's bookkeeping (placement=arena): runs never overlap, places are random (so a call's
// buffers get new addresses), a crowded range still fills every gap, and a full one says so.
TEST(Placement, RandomPlacesThatNeverOverlap) {
  kj::Placement p(1024, 7);
  std::set<std::size_t> firsts;
  std::vector<bool> taken(1024, false);
  for (int i = 0; i < 100; ++i) {
    const auto at = p.take(3);
    ASSERT_TRUE(at);
    firsts.insert(*at);
    for (std::size_t g = *at; g < *at + 3; ++g) {
      ASSERT_LT(g, 1024u);
      EXPECT_FALSE(taken[g]) << "granule " << g << " given twice";
      taken[g] = true;
    }
  }
  EXPECT_EQ(p.used(), 300u);
  EXPECT_EQ(firsts.size(), 100u);
  // Not packed from the start: a random spread over the range.
  EXPECT_GT(*firsts.rbegin(), 700u);
  EXPECT_TRUE(p.give_back(*firsts.begin()));
  EXPECT_FALSE(p.give_back(*firsts.begin()));  // already given back
  EXPECT_EQ(p.used(), 297u);
}

TEST(Placement, ACrowdedRangeFillsEveryGapThenSaysFull) {
  kj::Placement p(16, 1);
  std::vector<std::size_t> got;
  while (auto at = p.take(1)) got.push_back(*at);
  EXPECT_EQ(got.size(), 16u);
  EXPECT_EQ(std::set<std::size_t>(got.begin(), got.end()).size(), 16u);
  EXPECT_FALSE(p.take(1));
  EXPECT_FALSE(kj::Placement(4, 1).take(5));  // larger than the range
  EXPECT_FALSE(kj::Placement(4, 1).take(0));
  p.give_back(got[3]);
  const auto again = p.take(1);
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, got[3]);  // the one free granule
}
