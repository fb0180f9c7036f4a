#include "perf/gpu_conditions.h"

#include <gtest/gtest.h>

namespace kjudge {
namespace {

// Lines as nvidia-smi 580 prints them for the queries (--format=csv,noheader,nounits).
TEST(GpuConditions, ParsesASnapshotLine) {
  auto s = parse_gpu_snapshot(
      "NVIDIA H100 80GB HBM3, 580.159.04, P0, 1980, 2619, 1980, 2619, 33, 124.61, 700.00, "
      "0x0000000000000000");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(s->driver, "580.159.04");
  EXPECT_EQ(s->pstate, "P0");
  EXPECT_DOUBLE_EQ(s->sm_clock_mhz, 1980);
  EXPECT_DOUBLE_EQ(s->max_mem_clock_mhz, 2619);
  EXPECT_DOUBLE_EQ(s->temperature_c, 33);
  EXPECT_DOUBLE_EQ(s->power_w, 124.61);
  EXPECT_DOUBLE_EQ(s->power_limit_w, 700);
  EXPECT_EQ(s->clock_event_reasons, 0u);
  EXPECT_TRUE(to_json(*s)["slowdowns"].empty());
}

TEST(GpuConditions, NotAvailableFieldsReadAsZeroAndShortLinesAreRejected) {
  auto s = parse_gpu_snapshot(
      "Some GPU, 580.1, P8, [N/A], [N/A], 1500, 5000, 40, [N/A], "
      "[N/A], 0x0000000000000001");
  ASSERT_TRUE(s.has_value());
  EXPECT_DOUBLE_EQ(s->sm_clock_mhz, 0);
  EXPECT_DOUBLE_EQ(s->power_w, 0);
  EXPECT_EQ(s->clock_event_reasons, 1u);
  EXPECT_FALSE(parse_gpu_snapshot("NVIDIA H100, 580").has_value());
  EXPECT_FALSE(parse_gpu_snapshot("").has_value());
  EXPECT_FALSE(parse_gpu_sample("1980, 40").has_value());
}

TEST(GpuConditions, OnlySlowdownBitsCountAsSlowdowns) {
  EXPECT_TRUE(slowdown_reasons(0x1).empty()) << "idle is not a slowdown";
  EXPECT_TRUE(slowdown_reasons(0x2 | 0x10 | 0x100).empty());
  EXPECT_EQ(slowdown_reasons(0x4), std::vector<std::string>{"sw_power_cap"});
  EXPECT_EQ(slowdown_reasons(0x20 | 0x40 | 0x8 | 0x80),
            (std::vector<std::string>{"hw_slowdown", "sw_thermal_slowdown", "hw_thermal_slowdown",
                                      "hw_power_brake_slowdown"}));
}

TEST(GpuConditions, SamplesFoldIntoWhatTheBusyGpuDid) {
  std::vector<GpuSample> samples;
  for (const char* line : {"345, 33, 70.1, 0, 0x0000000000000001",  // idle: clocks down
                           "1980, 45, 480.0, 100, 0x0000000000000000",
                           "1755, 52, 699.5, 100, 0x0000000000000004",  // power cap
                           "1980, 54, 511.8, 97, 0x0000000000000000"}) {
    auto s = parse_gpu_sample(line);
    ASSERT_TRUE(s.has_value()) << line;
    samples.push_back(*s);
  }
  GpuWatchReport r = summarize_samples(samples);
  EXPECT_EQ(r.samples, 4);
  EXPECT_EQ(r.busy_samples, 3);
  EXPECT_DOUBLE_EQ(r.min_busy_sm_clock_mhz, 1755) << "the idle sample's 345 MHz does not count";
  EXPECT_DOUBLE_EQ(r.max_busy_sm_clock_mhz, 1980);
  EXPECT_DOUBLE_EQ(r.max_temperature_c, 54);
  EXPECT_DOUBLE_EQ(r.max_power_w, 699.5);
  EXPECT_EQ(r.slowdowns, std::vector<std::string>{"sw_power_cap"});
  EXPECT_EQ(summarize_samples({}).busy_samples, 0);
}

}  // namespace
}  // namespace kjudge
