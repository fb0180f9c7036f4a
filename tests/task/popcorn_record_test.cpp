// What a GPU MODE harness writes on POPCORN_FD, read as GPU MODE's runner reads it, and the
// verdict kjudge takes from it.
#include "task/popcorn_record.h"

#include <gtest/gtest.h>

namespace kjudge::task {
namespace {

std::vector<TaskCase> two_cases() {
  return {{{{"size", "3"}, {"seed", "5"}}, 1}, {{{"size", "9"}, {"seed", "6"}}, 2}};
}

TEST(PopcornRecord, ReadsEvalPysTestLines) {
  const PopcornRecord r = parse_popcorn_record(
      "test-count: 2\n"
      "test.0.spec: size: 3; seed: 5\n"
      "test.0.status: pass\n"
      "test.1.spec: size: 9; seed: 6\n"
      "test.1.status: fail\n"
      "test.1.error: mismatch found! custom implementation doesn't match reference: ERROR AT (0,)\n"
      "check: fail\n");
  EXPECT_EQ(r.test_count, 2);
  ASSERT_EQ(r.tests.size(), 2u);
  EXPECT_EQ(r.tests[0].spec, "size: 3; seed: 5");  // split at the first colon only
  EXPECT_TRUE(r.tests[0].passed());
  EXPECT_FALSE(r.tests[1].passed());
  EXPECT_EQ(r.check, "fail");
  const PopcornVerdict v = popcorn_verdict(r, "test", two_cases());
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.failure.find("test 'size: 9; seed: 6': mismatch found"), std::string::npos)
      << v.failure;
}

TEST(PopcornRecord, BenchmarksWithoutStatusPassOnTheirFigures) {
  // eval.py writes a status only on failure; eval.cu writes "pass" too.
  const PopcornRecord r = parse_popcorn_record(
      "benchmark-count: 2\n"
      "benchmark.0.spec: size: 3; seed: 5\n"
      "benchmark.0.runs: 100\nbenchmark.0.mean: 12000.5\nbenchmark.0.std: 10\n"
      "benchmark.0.err: 1\nbenchmark.0.best: 11000\nbenchmark.0.worst: 15000\n"
      "benchmark.1.spec: size: 9; seed: 6\nbenchmark.1.status: pass\nbenchmark.1.mean: 3e4\n"
      "check: pass\n");
  ASSERT_EQ(r.benchmarks.size(), 2u);
  EXPECT_TRUE(r.benchmarks[0].passed());
  EXPECT_DOUBLE_EQ(*r.benchmarks[0].mean, 12000.5);
  EXPECT_DOUBLE_EQ(*r.benchmarks[1].mean, 30000);
  EXPECT_TRUE(popcorn_verdict(r, "benchmark", two_cases()).passed);
}

TEST(PopcornRecord, APassMustBeBackedByEveryCase) {
  // No check line: the harness did not finish.
  EXPECT_FALSE(popcorn_verdict(parse_popcorn_record("test-count: 1\n"), "test", {}).passed);
  // check: pass with a test missing, or beside a failed one.
  PopcornVerdict v = popcorn_verdict(
      parse_popcorn_record("test-count: 2\ntest.0.status: pass\ncheck: pass\n"), "test", {});
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.failure.find("not every test"), std::string::npos);
  v = popcorn_verdict(parse_popcorn_record("test-count: 1\ntest.0.status: fail\ncheck: pass\n"),
                      "test", {});
  EXPECT_FALSE(v.passed);
  // A benchmark mode's pass needs its benchmarks.
  EXPECT_FALSE(popcorn_verdict(parse_popcorn_record("check: pass\n"), "benchmark", {}).passed);
}

TEST(PopcornRecord, OddLinesAreKeptNotObeyed) {
  const PopcornRecord r = parse_popcorn_record(
      "test-count: 1\nhello world\ntest.5.status: pass\ntest.0.status: pass\nwhatever: 1\n"
      "test-count: 999999999\ncheck: pass\n");
  EXPECT_EQ(r.tests.size(), 1u);  // index 5 was past the count announced then
  EXPECT_EQ(r.odd.size(), 3u);
  EXPECT_EQ(r.test_count, -1);  // a count past a million is no count
}

TEST(PopcornRecord, ProfileReportsDecode) {
  // "hello profiler" in GPU MODE's base64 (+ and * for the two extra characters).
  EXPECT_EQ(decode_popcorn_base64("aGVsbG8gcHJvZmlsZXI="), "hello profiler");
  EXPECT_EQ(decode_popcorn_base64("*w=="), "\xff");
  EXPECT_EQ(decode_popcorn_base64("not/base64"), "");
  const PopcornRecord r = parse_popcorn_record(
      "benchmark-count: 1\nbenchmark.0.spec: size: 3\nbenchmark.0.report: aGVsbG8gcHJvZmlsZXI=\n"
      "check: pass\n");
  EXPECT_EQ(r.benchmarks[0].report, "hello profiler");
}

}  // namespace
}  // namespace kjudge::task
