// `kjudge evaluate --benchmark` end to end through the real binary, on host-only problems (no
// GPU here): the interleaved runs, perf.jsonl, the summary's performance numbers, --resume,
// not_timed reasons, and (where the profiler library was built) the profiler's record coming
// back over its channel from inside the sandbox.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;
const std::string kBin = KJUDGE_BINARY;

using Cmd = testing::CmdResult;
Cmd sh(const std::string& command) { return testing::run_capture(command); }

using testing::read_jsonl;

nlohmann::json read_json(const fs::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

// A host-only problem: solve() must return 42; `--perf` runs the benchmark part, whose
// timing mode the test chooses. The baseline's benchmark body is `base_bench`.
void write_problem(const fs::path& dir, const std::string& id, const std::string& timing,
                   const std::string& benchmark_command, const std::string& base_bench) {
  testing::write_text(dir / "problem-spec.yaml",
                      "type: cuda_cpp\nschema_version: 2\ntask_id: " + id +
                          "\ndate: \"2026-11-22\"\nprompt: Return 42 from solve(); bench() "
                          "is timed.\nmetadata: {difficulty: easy, host_only: true}\ngroup: "
                          "bench-tests\nsource_references: null\nbuild_command: cc -O1 -o "
                          "test.out solution.c test/main.c\ntest_command: ./test.out\n"
                          "benchmark_command: " +
                          benchmark_command + "\ntiming_mode: " + timing +
                          "\nmin_cuda_toolkit: null\ncompute_capability: null\n"
                          "requires_datacenter_gpu: false\ntimeout_seconds: 20.0\n");
  testing::write_text(dir / "test/main.c",
                      "#include <stdio.h>\n#include <string.h>\nint solve(void);\n"
                      "void bench(void);\nint main(int argc, char** argv) {\n"
                      "  if (argc > 1 && strcmp(argv[1], \"--perf\") == 0) { bench(); return 0; "
                      "}\n  return solve() == 42 ? 0 : 1;\n}\n");
  testing::write_text(dir / "solution/solution.c",
                      "#include <stdio.h>\n#include <unistd.h>\nint solve(void) { return 42; }\n"
                      "void bench(void) { " +
                          base_bench + " }\n");
}

void write_solution(const fs::path& dir, const std::string& id, int sample,
                    const std::string& solve, const std::string& bench) {
  testing::write_text(dir / "solution-spec.yaml",
                      "task_id: " + id + "\nsample: " + std::to_string(sample) + "\n");
  testing::write_text(dir / "solution.c",
                      "#include <stdio.h>\n#include <unistd.h>\nint solve(void) { " + solve +
                          " }\nvoid bench(void) { " + bench + " }\n");
}

class BenchStage : public ::testing::Test {
 protected:
  std::string run(const std::string& extra, int* rc) {
    Cmd c = sh(kBin + " evaluate --problems " + (dir_ / "problems").string() + " --solutions " +
               (dir_ / "solutions").string() + " --out " + (dir_ / "run").string() +
               " --cache-dir " + (dir_ / "cache").string() + " --work-dir " +
               (dir_ / "work").string() + " -q --benchmark " + extra);
    *rc = c.rc;
    return c.out;
  }
  testing::TempDir dir_;
};

TEST_F(BenchStage, CustomTimesComeBackAsSpeedupsWithTheSummaryNumbers) {
  const std::string custom = "{type: custom}";
  write_problem(dir_ / "problems/custom", "bench/custom", custom, "./test.out --perf",
                "printf(\"COMPUTE_EVAL_TIME_MS: 10.0\\n\");");
  write_problem(dir_ / "problems/untimed", "bench/untimed", custom, "null", "");
  write_solution(dir_ / "solutions/fast", "bench/custom", 0, "return 42;",
                 "printf(\"COMPUTE_EVAL_TIME_MS: 5.0\\n\");");
  write_solution(dir_ / "solutions/slow", "bench/custom", 1, "return 42;",
                 "printf(\"COMPUTE_EVAL_TIME_MS: 20\\n\");");
  write_solution(dir_ / "solutions/wrong", "bench/custom", 2, "return 41;",
                 "printf(\"COMPUTE_EVAL_TIME_MS: 1\\n\");");
  write_solution(dir_ / "solutions/untimed", "bench/untimed", 0, "return 42;", "");
  int rc = -1;
  std::string out = run("--runs 3 --warmups 1", &rc);
  ASSERT_EQ(rc, 0) << out;

  std::map<std::pair<std::string, int>, nlohmann::json> perf;
  for (const auto& j : read_jsonl(dir_ / "run/perf.jsonl"))
    perf[{j["task_id"].get<std::string>(), j["sample"].get<int>()}] = j;
  ASSERT_EQ(perf.size(), 3u) << "the two passing custom solutions and the untimed one";
  const auto& fast = perf.at({"bench/custom", 0});
  EXPECT_EQ(fast["solution_ms"], nlohmann::json({5.0, 5.0, 5.0}));
  EXPECT_EQ(fast["baseline_ms"], nlohmann::json({10.0, 10.0, 10.0}));
  EXPECT_DOUBLE_EQ(fast["speedup"]["estimate"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(fast["speedup"]["low"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(perf.at({"bench/custom", 1})["speedup"]["estimate"].get<double>(), 0.5);
  const auto& untimed = perf.at({"bench/untimed", 0});
  EXPECT_TRUE(untimed["speedup"].is_null());
  EXPECT_EQ(untimed["not_timed"], "the problem has no benchmark_command");
  for (const auto& [key, line] : perf)
    for (const char* field : {"timed", "solution_ms", "baseline_ms", "how", "gpu", "seconds"})
      EXPECT_TRUE(line.contains(field)) << key.first << " lacks " << field;

  nlohmann::json s = read_json(dir_ / "run/summary.json");
  ASSERT_TRUE(s.contains("performance")) << s.dump(2);
  const auto& p = s["performance"];
  EXPECT_EQ(p["solutions"], 4);
  EXPECT_EQ(p["timed"], 2);
  EXPECT_NEAR(p["geomean_speedup"].get<double>(), 1.0, 1e-12);  // sqrt(2 * 0.5)
  EXPECT_NEAR(p["fast_p"]["1"].get<double>(), 0.25, 1e-12);     // only the fast one, of 4
  EXPECT_NEAR(p["fast_p"]["2"].get<double>(), 0.0, 1e-12);      // 2.0 is not more than 2
  EXPECT_EQ(p["runs"], 3);

  // --resume times nothing again.
  std::string again = run("--runs 3 --warmups 1 --resume", &rc);
  EXPECT_EQ(rc, 0) << again;
  EXPECT_EQ(read_jsonl(dir_ / "run/perf.jsonl").size(), 3u);
}

TEST_F(BenchStage, ABaselineThatFailsHereTimesNothing) {
  write_problem(dir_ / "problems/broken", "bench/broken", "{type: custom}", "./test.out --perf",
                "printf(\"COMPUTE_EVAL_TIME_MS: 10\\n\");");
  // The shipped baseline returns the wrong answer.
  testing::write_text(dir_ / "problems/broken/solution/solution.c",
                      "int solve(void) { return 7; }\nvoid bench(void) {}\n");
  write_solution(dir_ / "solutions/ok", "bench/broken", 0, "return 42;",
                 "printf(\"COMPUTE_EVAL_TIME_MS: 5\\n\");");
  int rc = -1;
  // By default the baseline is judged first (plan/baseline_check.h): the problem cannot be
  // judged here, so its solution is skipped and nothing is timed.
  std::string out = run("--runs 2", &rc);
  ASSERT_EQ(rc, 0) << out;
  auto results = read_jsonl(dir_ / "run/results.jsonl");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0]["verdict"], "skipped") << results[0].dump();
  EXPECT_EQ(results[0]["skip_reason"], "baseline_fails") << results[0].dump();
  EXPECT_TRUE(read_jsonl(dir_ / "run/perf.jsonl").empty());
  // Without that check, the benchmark stage still refuses to time against it.
  fs::remove_all(dir_ / "run");
  out = run("--runs 2 --no-baseline-check", &rc);
  ASSERT_EQ(rc, 0) << out;
  auto perf = read_jsonl(dir_ / "run/perf.jsonl");
  ASSERT_EQ(perf.size(), 1u);
  EXPECT_TRUE(perf[0]["speedup"].is_null());
  EXPECT_NE(perf[0]["not_timed"].get<std::string>().find("baseline solution does not pass"),
            std::string::npos)
      << perf[0].dump();
}

// A solution that prints a time line of its own and ends the benchmark run with _exit(0),
// before the test program prints the real one: ComputeEval's harness would take 0.001 ms. The
// main guard (run/main_return.h) sees that main() never returned, and the run is not timed.
TEST_F(BenchStage, ABenchmarkRunThatEndsBeforeMainReturnsIsNotTimed) {
  write_problem(dir_ / "problems/early", "bench/early", "{type: custom}", "./test.out --perf",
                "printf(\"COMPUTE_EVAL_TIME_MS: 10\\n\");");
  write_solution(dir_ / "solutions/early", "bench/early", 0, "return 42;",
                 "printf(\"COMPUTE_EVAL_TIME_MS: 0.001\\n\"); fflush(stdout); _exit(0);");
  int rc = -1;
  std::string out = run("--runs 2 --warmups 0", &rc);
  ASSERT_EQ(rc, 0) << out;
  auto perf = read_jsonl(dir_ / "run/perf.jsonl");
  ASSERT_EQ(perf.size(), 1u);
  EXPECT_TRUE(perf[0]["speedup"].is_null()) << perf[0].dump(2);
  EXPECT_NE(perf[0]["not_timed"].get<std::string>().find("before its main() returned"),
            std::string::npos)
      << perf[0].dump(2);
}

// A statically linked benchmark program takes no preloaded library: the profiler's channel, nonce
// inside, would be the program's to write (issue 31). Not timed, and the reason says so.
TEST_F(BenchStage, AProgramTheProfilerCannotLoadIntoIsNotTimed) {
  testing::TempDir probe;
  testing::write_text(probe / "m.c", "int main(void) { return 0; }\n");
  if (sh("cc -static -o " + (probe / "m").string() + " " + (probe / "m.c").string()).rc != 0)
    GTEST_SKIP() << "no static C library here";
  testing::write_text(dir_ / "fake_profiler.so", "not a library\n");
  write_problem(dir_ / "problems/static", "bench/static", "{type: process}", "./test.out --perf",
                "usleep(1000);");
  std::string spec = testing::read_text(dir_ / "problems/static/problem-spec.yaml");
  spec.replace(spec.find("cc -O1"), 6, "cc -O1 -static");
  testing::write_text(dir_ / "problems/static/problem-spec.yaml", spec);
  write_solution(dir_ / "solutions/static", "bench/static", 0, "return 42;", "usleep(1000);");
  int rc = -1;
  std::string out =
      run("--runs 2 --warmups 0 --profiler " + (dir_ / "fake_profiler.so").string(), &rc);
  ASSERT_EQ(rc, 0) << out;
  auto perf = read_jsonl(dir_ / "run/perf.jsonl");
  ASSERT_EQ(perf.size(), 1u);
  EXPECT_TRUE(perf[0]["speedup"].is_null()) << perf[0].dump(2);
  EXPECT_NE(perf[0]["not_timed"].get<std::string>().find("statically linked"), std::string::npos)
      << perf[0].dump(2);
}

// The profiler's own record, from inside the sandbox: process mode times the whole program.
TEST_F(BenchStage, ProcessModeIsTimedByTheProfiler) {
  const fs::path lib = fs::path(kBin).parent_path() / "libkjudge_profiler.so";
  if (!fs::exists(lib)) GTEST_SKIP() << "no profiler library (CUPTI not found at build time)";
  write_problem(dir_ / "problems/sleepy", "bench/sleepy", "{type: process}", "./test.out --perf",
                "usleep(200000);");
  write_solution(dir_ / "solutions/faster", "bench/sleepy", 0, "return 42;", "usleep(100000);");
  int rc = -1;
  std::string out = run("--runs 3 --profiler " + lib.string(), &rc);
  ASSERT_EQ(rc, 0) << out;
  auto perf = read_jsonl(dir_ / "run/perf.jsonl");
  ASSERT_EQ(perf.size(), 1u);
  ASSERT_FALSE(perf[0]["speedup"].is_null()) << perf[0].dump(2);
  for (double ms : perf[0]["baseline_ms"]) EXPECT_GE(ms, 200.0);
  for (double ms : perf[0]["solution_ms"]) EXPECT_GE(ms, 100.0);
  double est = perf[0]["speedup"]["estimate"].get<double>();
  EXPECT_GT(est, 1.4) << perf[0].dump(2);
  EXPECT_LT(est, 2.1) << perf[0].dump(2);
}

// A region mode timed by kernel time, with the profiler's record written by the benchmark
// program itself (the "library" is a file the loader skips: no GPU here), one range and one
// kernel a run. A solution whose kernels take 0.1 ms against the baseline's 1 ms but whose
// region takes 50 ms against 2 ms is flagged (region_host_time, in perf.jsonl's cheat_flags and
// the summary's performance.flagged); an honest faster one is not.
TEST_F(BenchStage, ARegionTheHostSpendsMuchLongerInIsFlagged) {
  testing::write_text(dir_ / "fake_profiler.so", "not a library\n");
  auto record = [](const std::string& region_end, const std::string& kernel_end) {
    // The nonce is the channel's first line, taken and emptied as the real profiler does.
    return "char* getenv(const char*); int atoi(const char*); "
           "int fd = atoi(getenv(\"KJUDGE_PROFILE_FD\")); char n[64] = {0}; "
           "if (pread(fd, n, 63, 0) < 0) return; "
           "for (int i = 0; n[i]; ++i) if (n[i] == '\\n') n[i] = 0; "
           "if (ftruncate(fd, 0) != 0) return; "
           "dprintf(fd, \"KJPROF 1 %s\\nAPP 1 100000000\\n"
           "R 1000000 " +
           region_end + " 5 bench_region\\nK 2000000 " + kernel_end +
           " 1500000 5 0 1 7 1 k\\nDROPPED 0\\nEND 2\\n\", n);";
  };
  write_problem(dir_ / "problems/region", "bench/region",
                "{type: region, include: [bench_region], time_type: kernel}", "./test.out --perf",
                record("3000000", "3000000"));
  write_solution(dir_ / "solutions/host", "bench/region", 0, "return 42;",
                 record("51000000", "2100000"));
  write_solution(dir_ / "solutions/honest", "bench/region", 1, "return 42;",
                 record("2500000", "2500000"));
  int rc = -1;
  std::string out =
      run("--runs 3 --warmups 0 --profiler " + (dir_ / "fake_profiler.so").string(), &rc);
  ASSERT_EQ(rc, 0) << out;
  std::map<int, nlohmann::json> perf;
  for (const auto& j : read_jsonl(dir_ / "run/perf.jsonl")) perf[j["sample"].get<int>()] = j;
  ASSERT_EQ(perf.size(), 2u);
  const auto& host = perf.at(0);
  ASSERT_FALSE(host["speedup"].is_null()) << host.dump(2);
  EXPECT_NEAR(host["speedup"]["estimate"].get<double>(), 10.0, 1e-9);
  EXPECT_EQ(host["solution_wall_ms"], nlohmann::json({50.0, 50.0, 50.0}));
  EXPECT_EQ(host["baseline_wall_ms"], nlohmann::json({2.0, 2.0, 2.0}));
  ASSERT_TRUE(host.contains("cheat_flags")) << host.dump(2);
  EXPECT_EQ(host["cheat_flags"][0]["check"], "region_host_time");
  EXPECT_FALSE(perf.at(1).contains("cheat_flags")) << perf.at(1).dump(2);
  nlohmann::json s = read_json(dir_ / "run/summary.json");
  ASSERT_EQ(s["performance"]["flagged"].size(), 1u) << s["performance"].dump(2);
  EXPECT_EQ(s["performance"]["flagged"][0]["checks"], nlohmann::json({"region_host_time"}));
}

}  // namespace
}  // namespace kjudge
