#include "perf/perf_summary.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace kjudge {
namespace {

PerfOutcome timed(const std::string& task, const std::string& group, double speedup) {
  PerfOutcome o;
  o.task_id = task;
  o.group = group;
  o.correct = true;
  o.speedup = RatioInterval{speedup, speedup * 0.95, speedup * 1.05, 0.95};
  return o;
}

PerfOutcome not_timed(const std::string& task, const std::string& group, bool correct,
                      const std::string& reason) {
  PerfOutcome o;
  o.task_id = task;
  o.group = group;
  o.correct = correct;
  o.not_timed = reason;
  return o;
}

// A copy of the baseline is as often "faster" as slower by its estimate; only the confident
// count stays at zero.
TEST(PerfSummary, ConfidentFastPIgnoresNoise) {
  PerfOutcome a = timed("T/1", "g", 1.0003);
  a.speedup->low = 0.9991;
  a.speedup->high = 1.0012;
  PerfOutcome b = timed("T/2", "g", 1.25);
  b.speedup->low = 1.2;
  b.speedup->high = 1.3;
  nlohmann::json s = summarize_perf({a, b});
  EXPECT_DOUBLE_EQ(s["fast_p"]["1"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(s["fast_p_confident"]["1"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(s["groups"]["g"]["fast_p_confident"]["1"].get<double>(), 0.5);
}

TEST(PerfSummary, OverallAndPerGroup) {
  const std::string no_range = "no NVTX range matches bench_region";
  std::vector<PerfOutcome> outcomes = {
      timed("CUDA/1", "cuda-kernels", 2.0),       timed("CUDA/2", "cuda-kernels", 0.5),
      timed("CUDA/3", "cuda-kernels", 1.6),       not_timed("CUDA/4", "cuda-kernels", false, ""),
      not_timed("CUB/1", "cccl", true, no_range), timed("CUB/2", "cccl", 8.0),
      not_timed("CUB/3", "cccl", true, no_range), not_timed("CUB/4", "cccl", true, ""),
  };
  nlohmann::json s = summarize_perf(outcomes);
  EXPECT_EQ(s["solutions"], 8);
  EXPECT_EQ(s["timed"], 4);
  EXPECT_EQ(s["not_timed"]["incorrect"], 1);
  EXPECT_EQ(s["not_timed"][no_range], 2);
  EXPECT_EQ(s["not_timed"]["not timed (no reason given)"], 1);
  EXPECT_EQ(s["not_timed"].size(), 3u);
  // (2 * 0.5 * 1.6 * 8) ^ (1/4) = 12.8 ^ 0.25
  EXPECT_NEAR(s["geomean_speedup"].get<double>(), std::pow(12.8, 0.25), 1e-12);
  // Faster than 1x: 2.0, 1.6, 8.0 of all 8 solutions; than 1.5x the same; than 2x only 8.0.
  EXPECT_DOUBLE_EQ(s["fast_p"]["1"].get<double>(), 3 / 8.0);
  EXPECT_DOUBLE_EQ(s["fast_p"]["1.5"].get<double>(), 3 / 8.0);
  EXPECT_DOUBLE_EQ(s["fast_p"]["2"].get<double>(), 1 / 8.0);
  // Intervals are estimate x [0.95, 1.05]: 1.6's lower end (1.52) is above 1.5, 2.0's (1.9) is
  // not above 2; so confidently faster than 1x: 2.0, 1.6, 8.0; than 1.5x: 2.0, 1.6, 8.0 — and
  // than 2x only 8.0.
  EXPECT_DOUBLE_EQ(s["fast_p_confident"]["1"].get<double>(), 3 / 8.0);
  EXPECT_DOUBLE_EQ(s["fast_p_confident"]["2"].get<double>(), 1 / 8.0);

  ASSERT_EQ(s["groups"].size(), 2u);
  const nlohmann::json& k = s["groups"]["cuda-kernels"];
  EXPECT_EQ(k["solutions"], 4);
  EXPECT_EQ(k["timed"], 3);
  EXPECT_EQ(k["not_timed"], nlohmann::json({{"incorrect", 1}}));
  EXPECT_NEAR(k["geomean_speedup"].get<double>(), std::cbrt(1.6), 1e-12);
  EXPECT_DOUBLE_EQ(k["fast_p"]["1"].get<double>(), 2 / 4.0);
  EXPECT_DOUBLE_EQ(k["fast_p"]["1.5"].get<double>(), 2 / 4.0);
  EXPECT_DOUBLE_EQ(k["fast_p"]["2"].get<double>(), 0.0) << "2.0 is not faster than 2x";
  const nlohmann::json& c = s["groups"]["cccl"];
  EXPECT_EQ(c["solutions"], 4);
  EXPECT_EQ(c["timed"], 1);
  EXPECT_DOUBLE_EQ(c["geomean_speedup"].get<double>(), 8.0);
  EXPECT_DOUBLE_EQ(c["fast_p"]["2"].get<double>(), 1 / 4.0);
  EXPECT_FALSE(c.contains("groups"));
}

TEST(PerfSummary, AnIncorrectSolutionIsNeverTimed) {
  // A speedup on an incorrect solution (a caller's slip) must not count as fast.
  PerfOutcome wrong = timed("A/1", "g", 5.0);
  wrong.correct = false;
  nlohmann::json s = summarize_perf({wrong, timed("A/2", "g", 1.2)});
  EXPECT_EQ(s["timed"], 1);
  EXPECT_EQ(s["not_timed"]["incorrect"], 1);
  EXPECT_DOUBLE_EQ(s["geomean_speedup"].get<double>(), 1.2);
  EXPECT_DOUBLE_EQ(s["fast_p"]["1"].get<double>(), 0.5);
}

TEST(PerfSummary, NothingTimed) {
  nlohmann::json s = summarize_perf({not_timed("A/1", "g", true, "CUPTI dropped 3 records")});
  EXPECT_EQ(s["timed"], 0);
  EXPECT_TRUE(s["geomean_speedup"].is_null());
  EXPECT_DOUBLE_EQ(s["fast_p"]["1"].get<double>(), 0.0);
  EXPECT_EQ(s["not_timed"]["CUPTI dropped 3 records"], 1);

  s = summarize_perf({});
  EXPECT_EQ(s["solutions"], 0);
  EXPECT_TRUE(s["geomean_speedup"].is_null());
  EXPECT_TRUE(s["fast_p"]["1"].is_null());
  EXPECT_TRUE(s["not_timed"].is_object());
  EXPECT_TRUE(s["groups"].empty());
}

}  // namespace
}  // namespace kjudge
