// The task harness's report: accepted only whole, with this run's nonce on every line.
#include "perf/harness_record.h"

#include <gtest/gtest.h>

namespace kjudge {
namespace {

const std::string kNonce = "0123456789abcdef0123456789abcdef";

std::string rec(const std::vector<std::string>& lines, const std::string& nonce = kNonce) {
  std::string s;
  for (const auto& l : lines) s += "KJ1 " + nonce + " " + l + "\n";
  s += "KJ1 " + nonce + " end " + std::to_string(lines.size()) + "\n";
  return s;
}

const std::vector<std::string> kBenchmark = {"mode benchmark",
                                             "device NVIDIA H100 80GB HBM3",
                                             "l2_bytes 52428800",
                                             "benchmark-count 2",
                                             "warmup-calls 12",
                                             "benchmark.0.spec size: 1024; seed: 1",
                                             "benchmark.0.times_ns 1000.0,1100.0,900.0",
                                             "benchmark.0.host_ns 5000.0,5100.0,4900.0",
                                             "benchmark.0.checked 1",
                                             "benchmark.0.stop precise",
                                             "benchmark.0.status pass",
                                             "benchmark.1.spec size: 4096; seed: 2",
                                             "benchmark.1.times_ns 4000.0,4000.0,4000.0",
                                             "benchmark.1.host_ns 9000.0,9000.0,9000.0",
                                             "benchmark.1.checked 3",
                                             "benchmark.1.stop precise",
                                             "benchmark.1.status pass",
                                             "check pass"};

TEST(HarnessRecord, ReadsABenchmarkReport) {
  HarnessReport r = parse_harness_record(rec(kBenchmark), kNonce);
  EXPECT_TRUE(r.passed);
  EXPECT_EQ(r.mode, "benchmark");
  EXPECT_EQ(r.device, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(r.l2_bytes, 52428800);
  EXPECT_EQ(r.warmup_calls, 12);
  ASSERT_EQ(r.benchmarks.size(), 2u);
  EXPECT_EQ(r.benchmarks[0].spec, "size: 1024; seed: 1");
  EXPECT_EQ(r.benchmarks[0].times_ns, (std::vector<double>{1000, 1100, 900}));
  EXPECT_EQ(r.benchmarks[1].checked, 3);
  EXPECT_EQ(r.benchmarks[1].stop, "precise");
}

TEST(HarnessRecord, ReadsTestFailures) {
  HarnessReport r = parse_harness_record(
      rec({"mode test", "test-count 2", "test.0.spec size: 1", "test.0.status pass",
           "test.0.max_abs_error 0", "test.1.spec size: 7", "test.1.status fail",
           "test.1.error 3 of 7 values differ; [2] got 1 want 2", "check fail"}),
      kNonce);
  EXPECT_FALSE(r.passed);
  ASSERT_EQ(r.tests.size(), 2u);
  EXPECT_EQ(r.tests[0].max_abs_error, 0);
  EXPECT_EQ(r.tests[1].status, "fail");
  EXPECT_EQ(r.tests[1].error, "3 of 7 values differ; [2] got 1 want 2");
  EXPECT_EQ(r.tests[1].max_abs_error, -1);
}

TEST(HarnessRecord, RefusesWhatTheHarnessDidNotWrite) {
  const std::string good = rec(kBenchmark);
  struct Case {
    std::string text, expect;
  } cases[] = {
      {rec(kBenchmark, "ffffffffffffffffffffffffffffffff"), "nonce"},
      {good + "KJ1 " + kNonce + " check pass\n", "after the end"},
      {"benchmark.0.times_ns 1\n" + good, "nonce"},
      {good.substr(0, good.rfind("KJ1")), "no end record"},
      {good.substr(0, good.size() / 2), "nonce"},  // cut mid-line
      {rec({"mode test", "check pass"})
           .replace(rec({"mode test", "check pass"}).rfind("end 2"), 5, "end 3"),
       "counts"},
      {rec({"mode test", "test-count 1"}), "no check"},
      {rec({"mode test", "test-count 1", "test.0.status fail", "check pass"}), "failed test"},
      {rec({"mode test", "test-count 2", "test.0.status pass", "check pass"}), "not every test"},
      {rec({"mode test", "test-count 1", "test.5.status pass", "check pass"}), "outside"},
      {rec({"mode benchmark", "benchmark-count 1", "benchmark.0.times_ns 1,2",
            "benchmark.0.host_ns 1", "benchmark.0.status pass", "check pass"}),
       "differ in number"},
      {rec({"mode benchmark", "benchmark-count 1", "benchmark.0.times_ns 1,-2"}), "not a time"},
      {rec({"mode benchmark", "benchmark-count 1", "benchmark.0.times_ns 1,nan"}), "not a time"},
  };
  for (const auto& c : cases) {
    try {
      parse_harness_record(c.text, kNonce);
      ADD_FAILURE() << "accepted:\n" << c.text;
    } catch (const HarnessRecordError& e) {
      EXPECT_NE(std::string(e.what()).find(c.expect), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace kjudge
