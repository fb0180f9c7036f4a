#include "perf/benchmarker.h"

#include <gtest/gtest.h>

namespace kjudge {
namespace {

TEST(Benchmarker, SimpleCommandsRunWithoutAShell) {
  EXPECT_EQ(simple_command_words("./test.out --perf"),
            (std::vector<std::string>{"./test.out", "--perf"}));
  EXPECT_EQ(simple_command_words("  ./bench.out\t--perf  "),
            (std::vector<std::string>{"./bench.out", "--perf"}));
  for (const char* shell : {"./a && ./b", "./a | tee x", "FOO=1 ./a", "./a > out", "./a $X",
                            "cd x; ./a", "python3 -c 'print(1)'", "./a *", "./a\n./b", ""})
    EXPECT_FALSE(simple_command_words(shell).has_value()) << shell;
}

TEST(Benchmarker, SaysWhyAProblemCannotBeTimed) {
  Problem p;
  p.task_id = "t/1";
  EXPECT_EQ(bench_unavailable(p, "/x/lib.so"), "the problem has no benchmark_command");
  p.benchmark_command = "./test.out --perf";
  p.timing_mode.type = "region";  // without include
  EXPECT_NE(bench_unavailable(p, "/x/lib.so").find("timing_mode cannot be used"),
            std::string::npos);
  p.timing_mode.include = {"bench_region"};
  EXPECT_EQ(bench_unavailable(p, "/x/lib.so"), "");
  EXPECT_NE(bench_unavailable(p, "").find("needs the profiler library"), std::string::npos);
  p.timing_mode = TimingMode{};
  p.timing_mode.type = "custom";
  EXPECT_EQ(bench_unavailable(p, ""), "") << "custom mode needs no profiler";
}

TEST(Benchmarker, ResultJsonHasEveryKeyTimedOrNot) {
  BenchResult r;
  r.task_id = "t/1";
  r.not_timed = "why";
  nlohmann::json j = to_json(r);
  EXPECT_FALSE(j["timed"].get<bool>());
  EXPECT_TRUE(j["speedup"].is_null());
  EXPECT_EQ(j["not_timed"], "why");
  r.solution_ms = {1, 2};
  r.baseline_ms = {2, 4};
  r.solution = describe(r.solution_ms);
  r.baseline = describe(r.baseline_ms);
  r.speedup = speedup_interval(r.baseline_ms, r.solution_ms);
  j = to_json(r);
  EXPECT_TRUE(j["timed"].get<bool>());
  EXPECT_FALSE(j.contains("not_timed"));
  EXPECT_DOUBLE_EQ(j["solution"]["median_ms"].get<double>(), 1.5);
  EXPECT_NEAR(j["speedup"]["estimate"].get<double>(), 2.0, 1e-12);
}

}  // namespace
}  // namespace kjudge
