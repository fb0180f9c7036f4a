// Running a built task: the private result channel end to end, with stand-in harness programs
// (shell scripts in place of kjudge_task) that report, forge, crash or hang; the seeds; the
// score. The real harness runs on the GPU machine (tests/gpu/run-task-checks.sh).
#include "eval/task_run.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "kjudge/seeds.h"
#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

TaskSpec small_task() {
  TaskSpec t;
  t.name = "fake";
  t.lang = "cu";
  t.tests = {{{{"size", "3"}, {"seed", "5"}}, 1}, {{{"size", "9"}, {"seed", "6"}}, 2}};
  t.benchmarks = {{{{"size", "100"}, {"seed", "7"}}, 3}};
  t.test_timeout_s = 5;
  t.ranking_by = RankingBy::geom;
  return t;
}

// A stand-in for kjudge_task: takes the nonce from the channel, empties it, then runs `body`
// with w() appending one record.
TaskBuild fake_harness(const fs::path& dir, const std::string& body) {
  const std::string script =
      "#!/bin/sh\n"
      "ch=/proc/self/fd/$KJUDGE_RESULT_FD\n"
      "nonce=$(head -n1 $ch)\n"
      ": > $ch\n"
      "w() { echo \"KJ1 $nonce $*\" >> $ch; }\n" +
      body;
  std::ofstream(dir / "kjudge_task") << script;
  chmod((dir / "kjudge_task").c_str(), 0755);
  TaskBuild b;
  b.ok = true;
  b.workspace = dir;
  b.binary = dir / "kjudge_task";
  return b;
}

TaskRunOptions plain() {
  TaskRunOptions o;
  o.step.sandbox = false;
  o.step.log_cap = 16 * 1024;
  return o;
}

TEST(TaskRun, AcceptsAWholeReport) {
  TempDir dir;
  TaskBuild b = fake_harness(dir.path(), R"(
w mode $1
w test-count 2
i=0
while read line; do w test.$i.spec $line; w test.$i.status pass; i=$((i+1)); done < $2
w check pass
w end 7
)");
  ModeRun r = run_task_mode(small_task(), b, "test", plain());
  EXPECT_TRUE(r.completed) << r.failure << r.log;
  EXPECT_TRUE(r.passed);
  ASSERT_EQ(r.report.tests.size(), 2u);
  EXPECT_EQ(r.report.tests[1].spec, "size: 9; seed: 6");
  nlohmann::json j = to_json(r, small_task());
  EXPECT_EQ(j["tests"][0]["status"], "pass");
}

TEST(TaskRun, AForgedRecordIsRefused) {
  TempDir dir;
  // GPU MODE's cheat-fd: the submission writes its own verdict into the result channel.
  TaskBuild b = fake_harness(dir.path(), R"(
w mode test
w test-count 1
w test.0.status fail
echo "KJ1 00000000000000000000000000000000 check pass" >> $ch
w check fail
w end 4
)");
  ModeRun r = run_task_mode(small_task(), b, "test", plain());
  EXPECT_FALSE(r.completed);
  EXPECT_FALSE(r.passed);
  EXPECT_TRUE(r.channel_refused);
  EXPECT_NE(r.failure.find("nonce"), std::string::npos) << r.failure;
}

TEST(TaskRun, StdoutIsNeverTheChannel) {
  TempDir dir;
  TaskBuild b =
      fake_harness(dir.path(), "echo \"KJ1 $nonce check pass\"\necho \"KJ1 $nonce end 1\"\n");
  ModeRun r = run_task_mode(small_task(), b, "test", plain());
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.failure.find("no end record"), std::string::npos) << r.failure;
}

TEST(TaskRun, CudaErrorsCrashesAndHangsSayWhat) {
  TempDir dir;
  TaskBuild b = fake_harness(
      dir.path(),
      "echo 'kjudge harness: CUDA error cudaErrorIllegalAddress (an illegal memory access "
      "was encountered) in custom_kernel' >&2\nexit 110\n");
  ModeRun r = run_task_mode(small_task(), b, "test", plain());
  EXPECT_FALSE(r.passed);
  EXPECT_NE(r.failure.find("CUDA error: kjudge harness: CUDA error cudaErrorIllegalAddress"),
            std::string::npos)
      << r.failure;

  b = fake_harness(dir.path(), "kill -SEGV $$\n");
  r = run_task_mode(small_task(), b, "test", plain());
  EXPECT_NE(r.failure.find("signal 11"), std::string::npos) << r.failure;

  TaskSpec t = small_task();
  t.test_timeout_s = 1;
  b = fake_harness(dir.path(), "sleep 30\n");
  r = run_task_mode(t, b, "test", plain());
  EXPECT_NE(r.failure.find("timed out after 1 s"), std::string::npos) << r.failure;
}

TEST(TaskRun, BenchmarkFiguresAndScore) {
  TempDir dir;
  TaskBuild b = fake_harness(dir.path(), R"(
w mode benchmark
w benchmark-count 1
w warmup-calls 20
w benchmark.0.spec $(cat $2)
w benchmark.0.times_ns 2000.0,2200.0,1800.0
w benchmark.0.host_ns 9000.0,9000.0,9000.0
w benchmark.0.checked 1
w benchmark.0.stop precise
w benchmark.0.status pass
w check pass
w end 10
)");
  ModeRun r = run_task_mode(small_task(), b, "benchmark", plain());
  ASSERT_TRUE(r.passed) << r.failure << r.log;
  nlohmann::json j = to_json(r, small_task());
  auto& x = j["benchmarks"][0];
  EXPECT_EQ(x["runs"], 3);
  EXPECT_DOUBLE_EQ(x["mean_us"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(x["median_us"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(x["best_us"].get<double>(), 1.8);
  EXPECT_DOUBLE_EQ(x["host_mean_us"].get<double>(), 9.0);
  EXPECT_NEAR(x["rel_err"].get<double>(), 0.2 / std::sqrt(3.0) / 2.0, 1e-12);
  EXPECT_DOUBLE_EQ(j["score_us"].get<double>(), 2.0);
  // The harness got the rule's settings on its command line.
  EXPECT_EQ(x["spec"], "size: 100; seed: 7");
}

TEST(TaskRun, RankedRunsCombineEverySeedWithTheSecret) {
  std::vector<TaskCase> cases = small_task().tests;
  EXPECT_EQ(task_cases_text(cases, std::nullopt), "size: 3; seed: 5\nsize: 9; seed: 6\n");
  EXPECT_EQ(task_cases_text(cases, 1000),
            "size: 3; seed: " + std::to_string(kj::combine_seed(5, 1000)) +
                "\nsize: 9; seed: " + std::to_string(kj::combine_seed(6, 1000)) + "\n");

  TempDir dir;
  TaskBuild b = fake_harness(dir.path(), "cp $2 seen.txt\nw check fail\nw end 1\n");
  TaskRunOptions o = plain();
  o.secret_seed = 1000;
  run_task_mode(small_task(), b, "leaderboard", o);
  std::ifstream in(dir / "seen.txt");
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "size: 100; seed: " + std::to_string(kj::combine_seed(7, 1000)));
  // The report shows the public case, never the combined seed.
  ModeRun r;
  r.mode = "leaderboard";
  r.report.benchmarks.push_back({"size: 100; seed: 123456", {1}, {1}, 1, "pass", "", "precise"});
  EXPECT_EQ(to_json(r, small_task())["benchmarks"][0]["spec"], "size: 100; seed: 7");
}

TEST(TaskScore, LastMeanGeom) {
  EXPECT_DOUBLE_EQ(*task_score(RankingBy::last, {1, 4, 16}), 16);
  EXPECT_DOUBLE_EQ(*task_score(RankingBy::mean, {1, 4, 16}), 7);
  EXPECT_NEAR(*task_score(RankingBy::geom, {1, 4, 16}), 4, 1e-12);
  EXPECT_FALSE(task_score(RankingBy::geom, {}));
  EXPECT_FALSE(task_score(RankingBy::geom, {1, 0})) << "a zero time is not a score";
}

}  // namespace
}  // namespace kjudge
