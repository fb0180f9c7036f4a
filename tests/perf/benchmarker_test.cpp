#include "perf/benchmarker.h"

#include <gtest/gtest.h>

namespace kjudge {
namespace {

TEST(Benchmarker, SimpleCommandsRunWithoutAShell) {
  auto argv = [](const std::string& c) {
    auto s = simple_command(c);
    return s ? s->argv : std::vector<std::string>{};
  };
  EXPECT_EQ(argv("./test.out --perf"), (std::vector<std::string>{"./test.out", "--perf"}));
  EXPECT_EQ(argv("  ./bench.out\t--perf  "), (std::vector<std::string>{"./bench.out", "--perf"}));
  EXPECT_EQ(argv("./bench.out --n=5"), (std::vector<std::string>{"./bench.out", "--n=5"}));
  for (const char* shell : {"./a && ./b", "./a | tee x", "./a > out", "./a $X", "cd x; ./a",
                            "python3 -c 'print(1)'", "./a *", "./a\n./b", "", "FOO=1"})
    EXPECT_FALSE(simple_command(shell).has_value()) << shell;
}

// ComputeEval's cuda_python commands (`PYTHONPATH=. python test.py --perf`) run without a shell
// too, their assignments in the step's environment: the profiler then loads into the
// interpreter alone. An assignment to what the judge sets itself stays the shell's.
TEST(Benchmarker, LeadingAssignmentsBecomeTheStepsEnvironment) {
  const auto c = simple_command("PYTHONPATH=. OMP_NUM_THREADS=1 python test_vec_sub.py --perf");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->env, (std::vector<std::string>{"PYTHONPATH=.", "OMP_NUM_THREADS=1"}));
  EXPECT_EQ(c->argv, (std::vector<std::string>{"python", "test_vec_sub.py", "--perf"}));
  for (const char* judges : {"LD_PRELOAD=x.so ./a", "PATH=. a", "NVTX_INJECTION64_PATH=x ./a",
                             "KJUDGE_PROFILE_FD=3 ./a", "CUDA_INJECTION64_PATH=x ./a", "1X=2 ./a"})
    EXPECT_FALSE(simple_command(judges).has_value()) << judges;
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

// A solution whose kernels take less while its timed region takes the host much longer: work
// moved off the GPU (computed on the host inside the region), where kernel time does not see it.
TEST(Benchmarker, ARegionTheHostSpendsMuchLongerInIsFlagged) {
  // Baseline: 2 ms in the region, 1 ms of kernels. Cheat: 50 ms and 0.1 ms.
  auto gap = region_host_gap({50, 51, 49}, {0.1, 0.1, 0.1}, {2, 2, 2}, {1, 1, 1});
  ASSERT_TRUE(gap.has_value());
  EXPECT_NE(gap->find("50.000 ms of wall-clock time"), std::string::npos) << *gap;
  // An honest faster solution: less of both.
  EXPECT_FALSE(region_host_gap({1.5, 1.5}, {0.5, 0.5}, {2, 2}, {1, 1}));
  // Slower on the host but slower on the GPU too: nothing gained, nothing flagged.
  EXPECT_FALSE(region_host_gap({50, 50}, {2, 2}, {2, 2}, {1, 1}));
  // Within 1.5 x + 1 ms: the host's own noise (a small region's launch overheads).
  EXPECT_FALSE(region_host_gap({3.9, 3.9}, {0.5, 0.5}, {2, 2}, {1, 1}));
  // No wall-clock figures (other modes): nothing to compare.
  EXPECT_FALSE(region_host_gap({}, {0.1}, {}, {1}));

  BenchResult r;
  r.task_id = "t/1";
  r.solution_wall_ms = {50};
  r.baseline_wall_ms = {2};
  r.flags.push_back({"region_host_time", *gap});
  nlohmann::json j = to_json(r);
  EXPECT_EQ(j["solution_wall_ms"], nlohmann::json({50.0}));
  EXPECT_EQ(j["cheat_flags"][0]["check"], "region_host_time");
  EXPECT_EQ(j["cheat_flags"][0]["source"], "timing");
  EXPECT_FALSE(to_json(BenchResult{}).contains("cheat_flags"));
  EXPECT_FALSE(to_json(BenchResult{}).contains("solution_wall_ms"));
}

}  // namespace
}  // namespace kjudge
