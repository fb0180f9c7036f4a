// Nsight Compute's CSV details page into the per-kernel summary. The fixture has the shape of
// `ncu --csv --page details --print-units base` output (ncu's own ==PROF== lines included);
// tests/fixtures/ncu-details-h100.csv, where present, is one recorded on the H100.
#include "perf/ncu_summary.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace kjudge {
namespace {

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(KJUDGE_SOURCE_DIR) + "/tests/fixtures/" + name);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(NcuSummary, SplitsQuotedCsv) {
  auto f = split_csv_line(R"("a","b, c","say ""hi""",,"1,234")");
  ASSERT_EQ(f.size(), 5u);
  EXPECT_EQ(f[1], "b, c");
  EXPECT_EQ(f[2], "say \"hi\"");
  EXPECT_EQ(f[3], "");
  EXPECT_EQ(f[4], "1,234");
}

TEST(NcuSummary, OneEntryPerProfiledKernel) {
  auto ks = parse_ncu_csv(fixture("ncu-details-shape.csv"));
  ASSERT_EQ(ks.size(), 2u);
  EXPECT_EQ(ks[0].name, "add_vec4(const float4 *, const float4 *, float4 *, long)");
  EXPECT_EQ(ks[0].block, "(256, 1, 1)");
  EXPECT_DOUBLE_EQ(ks[0].value("Duration"), 1234560);  // thousands separators dropped
  EXPECT_DOUBLE_EQ(ks[0].value("Registers Per Thread"), 28);
  EXPECT_DOUBLE_EQ(ks[1].value("Achieved Occupancy", -7), -7) << "n/a is not a number";
  nlohmann::json s = summarize_ncu(ks);
  EXPECT_DOUBLE_EQ(s[0]["memory_throughput_pct"].get<double>(), 91.52);
  EXPECT_DOUBLE_EQ(s[0]["achieved_occupancy_pct"].get<double>(), 88.31);
  EXPECT_EQ(s[0]["duration_unit"], "nsecond");
  EXPECT_EQ(s[1]["achieved_occupancy_pct"], "n/a");
}

TEST(NcuSummary, RecordedOnTheH100) {
  std::string text = fixture("ncu-details-h100.csv");
  if (text.empty()) GTEST_SKIP() << "no recorded fixture";
  // `kjudge task run examples/tasks/vectoradd .../fast.cu --mode profile` on the H100 (ncu of
  // CUDA 13.0, with --nvtx: its extra range columns, and rule rows with more columns).
  auto ks = parse_ncu_csv(text);
  ASSERT_EQ(ks.size(), 1u) << "only the kernel inside the custom_kernel range";
  const NcuKernel& k = ks[0];
  EXPECT_EQ(k.name, "add_vec4(const float4 *, const float4 *, float4 *, long)");
  EXPECT_DOUBLE_EQ(k.value("Duration"), 544192);
  EXPECT_DOUBLE_EQ(k.value("Registers Per Thread"), 28);
  EXPECT_DOUBLE_EQ(k.value("Achieved Occupancy"), 97.94);
  EXPECT_DOUBLE_EQ(k.value("Memory Throughput"), 87.59);
  nlohmann::json s = summarize_ncu(ks);
  EXPECT_EQ(s[0]["duration_unit"], "ns");
  EXPECT_DOUBLE_EQ(s[0]["compute_throughput_pct"].get<double>(), 3.78);
  EXPECT_EQ(s[0]["block"], "(256, 1, 1)");
}

TEST(NcuSummary, NoTableIsAnError) {
  EXPECT_THROW(parse_ncu_csv("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission\n"),
               std::runtime_error);
}

}  // namespace
}  // namespace kjudge
