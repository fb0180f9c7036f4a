// Running a built task: the private result channel end to end, with stand-in harness programs
// (shell scripts in place of kjudge_task) that report, forge, crash or hang; the seeds; the
// score; the CUPTI profiler's channel in the timed modes (a stand-in writes the profiler's
// record too). The real harness runs on the GPU machine (tests/gpu/run-task-checks.sh).
#include "task/run.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <iterator>
#include <map>

#include "kjudge/seeds.h"
#include "test_util.h"

namespace kjudge::task {
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
  o.profiler = fs::path();  // no profiler: these tests do not depend on one being built
  return o;
}

// A file in the profiler library's place: not a library, so the loader skips it (with a
// warning on stderr) and the stand-in harness finds the profiler's channel in its environment.
fs::path fake_profiler(const fs::path& dir) {
  std::ofstream(dir / "libkjudge_profiler.so") << "not a library\n";
  return dir / "libkjudge_profiler.so";
}

// A benchmark run's report as the stand-in harness writes it: the profiler loaded, three event
// times of 4 µs, host times of 5 µs, every output checked.
const char* kBenchmarkReport = R"SH(
w mode $1
w profiler loaded
w benchmark-count 1
w warmup-calls 3
w benchmark.0.spec 'size: 100; seed: 7'
w benchmark.0.times_ns 4000.0,4000.0,4000.0
w benchmark.0.host_ns 5000.0,5000.0,5000.0
w benchmark.0.checked 3
w benchmark.0.stop precise
w benchmark.0.status pass
w check pass
w end 11
)SH";

// The profiler's record as the stand-in writes it: three timed calls whose kernels (on a stream
// of their own) span 800 µs each, as tests/cheats/task/side_stream.cu's do. The nonce is the
// channel's first line, as the real profiler takes it (perf/profiler_channel.h).
const char* kSideStreamProfile = R"SH(
p=/proc/self/fd/$KJUDGE_PROFILE_FD
n=$(head -n 1 $p)
{
echo "KJPROF 1 $n"
echo "APP 1 9000000"
for r in 0 1 2; do
  t=$(( (r + 1) * 1000000 ))
  echo "R $t $((t + 3000)) 100 kjudge::timed 0 $r"
  echo "K $((t + 1500)) $((t + 801500)) $((t + 1000)) 100 0 1 9 $((r + 1)) add(float*)"
done
echo "DROPPED 0"
echo "END 6"
} > $p
echo "$LD_PRELOAD $NVTX_INJECTION64_PATH" > preload.txt
)SH";

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
  r.report.benchmarks.push_back(
      {"size: 100; seed: 123456", {1}, {1}, 1, "pass", "", "precise", {}});
  EXPECT_EQ(to_json(r, small_task())["benchmarks"][0]["spec"], "size: 100; seed: 7");
}

TEST(TaskRun, TimedRunsPreloadTheProfilerAndFlagWhatTheEventsMissed) {
  TempDir dir;
  TaskBuild b = fake_harness(dir.path(), std::string(kSideStreamProfile) + kBenchmarkReport);
  TaskRunOptions o = plain();
  o.profiler = fake_profiler(dir.path());
  ModeRun r = run_task_mode(small_task(), b, "benchmark", o);
  ASSERT_TRUE(r.completed) << r.failure << r.log;
  EXPECT_TRUE(r.passed) << "a flag never fails a run";
  // The harness process got the profiler as the ComputeEval path gives it.
  std::ifstream in(dir.path() / "preload.txt");
  std::string seen;
  std::getline(in, seen);
  EXPECT_EQ(seen, o.profiler->string() + " " + o.profiler->string());
  ASSERT_TRUE(r.cupti.used) << r.cupti.why;
  nlohmann::json j = to_json(r, small_task());
  EXPECT_EQ(j["cupti"]["used"], true);
  const auto& x = j["benchmarks"][0];
  EXPECT_DOUBLE_EQ(x["cupti_mean_us"].get<double>(), 800.0);
  EXPECT_DOUBLE_EQ(x["mean_us"].get<double>(), 4.0) << "the score stays the events' time";
  EXPECT_EQ(x["cupti_calls"], 3);
  ASSERT_TRUE(j.contains("cheat_flags")) << j.dump(2);
  std::vector<std::string> cupti;
  for (const auto& f : j["cheat_flags"])
    if (f["source"] == "cupti") cupti.push_back(f["check"].get<std::string>());
  EXPECT_EQ(cupti, std::vector<std::string>{"cupti_undercount"});
  EXPECT_DOUBLE_EQ(j["score_us"].get<double>(), 4.0);
}

TEST(TaskRun, ALoadedProfilerWhoseRecordNeverCameIsFlagged) {
  TempDir dir;
  TaskBuild b = fake_harness(dir.path(), kBenchmarkReport);
  TaskRunOptions o = plain();
  o.profiler = fake_profiler(dir.path());
  ModeRun r = run_task_mode(small_task(), b, "leaderboard", o);
  ASSERT_TRUE(r.completed) << r.failure << r.log;
  EXPECT_FALSE(r.cupti.used);
  ASSERT_EQ(r.cupti.flags.size(), 1u);
  EXPECT_EQ(r.cupti.flags[0].check, "cupti_record");
  EXPECT_EQ(to_json(r, small_task())["cheat_flags"][0]["check"], "cupti_record");
}

// A report whose process never ran its exit handlers (the profiler's header and nothing after
// it) is not the harness's: refused, whatever it claims (forge_report_memory.cu's state on the
// H100: a forged report saying "profiler absent", then _exit(0)).
TEST(TaskRun, AReportFromAProcessThatSkippedItsExitHandlersIsRefused) {
  TempDir dir;
  for (const char* said : {"absent", "loaded"}) {
    std::string report = kBenchmarkReport;
    report.replace(report.find("w profiler loaded"), 17, std::string("w profiler ") + said);
    TaskBuild b = fake_harness(dir.path(),
                               "echo \"KJPROF 1 -\" > /proc/self/fd/$KJUDGE_PROFILE_FD\n" + report);
    TaskRunOptions o = plain();
    o.profiler = fake_profiler(dir.path());
    ModeRun r = run_task_mode(small_task(), b, "leaderboard", o);
    EXPECT_FALSE(r.completed) << said;
    EXPECT_FALSE(r.passed) << said;
    EXPECT_TRUE(r.channel_refused) << said << ": " << r.failure;
    EXPECT_NE(r.failure.find("exit handlers"), std::string::npos) << r.failure;
  }
}

TEST(TaskRun, WithoutTheProfilerTheRecordSaysSo) {
  TempDir dir;
  TaskBuild b = fake_harness(dir.path(), "env > env.txt\n" + std::string(kBenchmarkReport));
  ModeRun r = run_task_mode(small_task(), b, "benchmark", plain());
  ASSERT_TRUE(r.completed) << r.failure << r.log;
  nlohmann::json j = to_json(r, small_task());
  EXPECT_EQ(j["cupti"]["used"], false);
  EXPECT_NE(j["cupti"]["why"].get<std::string>().find("libkjudge_profiler.so"), std::string::npos);
  EXPECT_FALSE(j.contains("cheat_flags"));
  std::ifstream in(dir.path() / "env.txt");
  std::string env((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(env.find("LD_PRELOAD"), std::string::npos);
  EXPECT_EQ(env.find("KJUDGE_PROFILE_FD"), std::string::npos);

  // KJUDGE_PROFILER=none (any path that is no file) turns it off.
  TaskRunOptions none = plain();
  none.profiler = fs::path("none");
  r = run_task_mode(small_task(), b, "benchmark", none);
  EXPECT_FALSE(r.cupti.used);
  EXPECT_NE(r.cupti.why.find("not found at none"), std::string::npos) << r.cupti.why;

  // GPU MODE's timing is kept for comparison only: never profiled.
  TaskRunOptions g = plain();
  g.profiler = fake_profiler(dir.path());
  g.gpumode_timing = true;
  r = run_task_mode(small_task(), b, "benchmark", g);
  EXPECT_NE(r.cupti.why.find("gpumode"), std::string::npos) << r.cupti.why;
  // Test mode runs no timed call: no profiler, no `cupti` object.
  b = fake_harness(dir.path(), "env > env.txt\nw check fail\nw end 1\n");
  r = run_task_mode(small_task(), b, "test", g);
  std::ifstream in2(dir.path() / "env.txt");
  std::string env2((std::istreambuf_iterator<char>(in2)), {});
  EXPECT_EQ(env2.find("LD_PRELOAD"), std::string::npos);
  EXPECT_FALSE(to_json(r, small_task()).contains("cupti"));
}

// The default placement (arena) reaches the harness as placement=arena; --placement malloc
// passes nothing, so the harness allocates each tensor as it did before the arena.
TEST(TaskRun, PlacementReachesTheHarness) {
  TempDir dir;
  TaskBuild b =
      fake_harness(dir.path(), std::string("echo \"$@\" > args.txt\n") + kBenchmarkReport);
  auto args = [&] {
    std::ifstream in(dir.path() / "args.txt");
    return std::string((std::istreambuf_iterator<char>(in)), {});
  };
  TaskRunOptions o = plain();
  run_task_mode(small_task(), b, "benchmark", o);
  EXPECT_NE(args().find("placement=arena"), std::string::npos) << args();
  o.placement = "malloc";
  run_task_mode(small_task(), b, "benchmark", o);
  EXPECT_EQ(args().find("placement"), std::string::npos) << args();
}

TEST(TaskScore, LastMeanGeom) {
  EXPECT_DOUBLE_EQ(*task_score(RankingBy::last, {1, 4, 16}), 16);
  EXPECT_DOUBLE_EQ(*task_score(RankingBy::mean, {1, 4, 16}), 7);
  EXPECT_NEAR(*task_score(RankingBy::geom, {1, 4, 16}), 4, 1e-12);
  EXPECT_FALSE(task_score(RankingBy::geom, {}));
  EXPECT_FALSE(task_score(RankingBy::geom, {1, 0})) << "a zero time is not a score";
}

// --- Isolated runs (TaskRunOptions::isolate) ---------------------------------------------------

// The stand-in harness as the checker of an isolated build: the same script under the checker's
// name, with the worker's program beside it.
TaskBuild fake_isolated(const fs::path& dir, const std::string& body) {
  TaskBuild b = fake_harness(dir, "echo \"$0 $*\" > argv.txt\n" + body);
  fs::copy_file(dir / "kjudge_task", dir / "kjudge_checker");
  std::ofstream(dir / "kjudge_worker") << "#!/bin/sh\nexit 0\n";
  b.checker = dir / "kjudge_checker";
  b.worker = dir / "kjudge_worker";
  return b;
}

// An isolated benchmark report: the worker's events 10 µs a call (times_ns), the checker's
// `checker` ns a call, the crossing 295 µs.
std::string isolated_report(const std::string& checker) {
  return "w mode $1\nw profiler absent\nw process isolated\nw crossing_ns 295000\n"
         "w benchmark-count 1\nw benchmark.0.spec 'size: 100; seed: 7'\n"
         "w benchmark.0.times_ns 10000,10000,10000\nw benchmark.0.host_ns 400000,400000,400000\n"
         "w benchmark.0.checker_ns " +
         checker + "," + checker + "," + checker +
         "\nw benchmark.0.checked 3\nw benchmark.0.stop precise\nw benchmark.0.status pass\n"
         "w check pass\nw end 13\n";
}

bool has_flag(const nlohmann::json& stage, const std::string& check) {
  for (const auto& f : stage.value("cheat_flags", nlohmann::json::array()))
    if (f["check"] == check) return true;
  return false;
}

TEST(TaskRun, IsolatedRunsStartTheCheckerWithItsWorker) {
  TempDir dir;
  TaskBuild b = fake_isolated(dir.path(), isolated_report("305500"));
  TaskRunOptions o = plain();
  o.isolate = true;
  o.profiler = fake_profiler(dir.path());
  ModeRun r = run_task_mode(small_task(), b, "benchmark", o);
  ASSERT_TRUE(r.completed) << r.failure << r.log;
  EXPECT_TRUE(r.isolated);
  std::ifstream in(dir.path() / "argv.txt");
  std::string argv;
  std::getline(in, argv);
  EXPECT_NE(argv.find("kjudge_checker benchmark cases-benchmark.txt"), std::string::npos) << argv;
  EXPECT_NE(argv.find("worker=./kjudge_worker"), std::string::npos) << argv;
  // The stand-in checker handed the profiler to no worker (its report says nothing of it): an
  // empty record is no flag then.
  EXPECT_FALSE(r.cupti.used);
  EXPECT_TRUE(r.cupti.flags.empty());
  nlohmann::json j = to_json(r, small_task());
  EXPECT_TRUE(j["isolated"].get<bool>());
  const auto& bench = j["benchmarks"][0];
  EXPECT_DOUBLE_EQ(bench["median_us"].get<double>(), 10.0) << "the score is the worker's events";
  EXPECT_DOUBLE_EQ(bench["checker_median_us"].get<double>(), 305.5);
  EXPECT_DOUBLE_EQ(bench["crossing_us"].get<double>(), 295.0);
  EXPECT_FALSE(has_flag(j, "isolated_time")) << j.dump(1);
}

// An isolated run's profiler goes to the worker through the checker (KJUDGE_WORKER_*), never
// into the checker itself; the worker's record is read as the one-process harness's is. The
// stand-in checker writes what the worker's profiler would: tests/cheats/task/keep_warm_thread.cu's
// kernels, launched between the calls by a thread of the worker's own.
TEST(TaskRun, AnIsolatedRunsWorkerGetsTheProfiler) {
  TempDir dir;
  const std::string worker_record = R"SH(
env > env.txt
p=/proc/self/fd/$KJUDGE_WORKER_PROFILE_FD
n=$(head -n 1 $p)
{
echo "KJPROF 1 $n"
echo "APP 1 9000000"
for r in 0 1 2; do
  t=$(( (r + 1) * 1000000 ))
  echo "R $t $((t + 12000)) 100 kjudge::timed 0 $r"
  echo "K $((t + 1500)) $((t + 9500)) $((t + 1000)) 100 0 1 7 $((r + 1)) add(float*)"
  echo "K $((t + 500000)) $((t + 700000)) $((t + 499000)) 200 0 1 9 $((r + 10)) warm(float*)"
  echo "K $((t + 20000)) $((t + 30000)) $((t + 15000)) 100 0 1 7 $((r + 20)) generate(float*)"
done
echo "DROPPED 0"
echo "END 12"
} > $p
)SH";
  std::string report = isolated_report("305500");
  report.replace(report.find("w check pass"), 12,
                 "w worker_profiler passed\nw worker_end exit 0\nw check pass");
  report.replace(report.find("w end 13"), 8, "w end 15");
  TaskBuild b = fake_isolated(dir.path(), worker_record + report);
  TaskRunOptions o = plain();
  o.isolate = true;
  o.profiler = fake_profiler(dir.path());
  ModeRun r = run_task_mode(small_task(), b, "benchmark", o);
  ASSERT_TRUE(r.completed) << r.failure << r.log;
  std::ifstream in(dir.path() / "env.txt");
  const std::string env((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(env.find("LD_PRELOAD"), std::string::npos) << "the checker runs without it";
  EXPECT_NE(env.find("KJUDGE_WORKER_PROFILER=" + o.profiler->string()), std::string::npos);
  ASSERT_TRUE(r.cupti.used) << r.cupti.why;
  nlohmann::json j = to_json(r, small_task());
  EXPECT_EQ(j["worker_end"], "exit 0");
  EXPECT_DOUBLE_EQ(j["benchmarks"][0]["cupti_mean_us"].get<double>(), 8.0);
  ASSERT_TRUE(has_flag(j, "cupti_outside")) << j.dump(1);
  EXPECT_FALSE(has_flag(j, "cupti_undercount"));
  EXPECT_TRUE(r.passed) << "a flag, not a verdict";

  // The worker's record cut after its header (it skipped its exit handlers): the checker's
  // report stands, and the worker is flagged.
  TempDir cut_dir;
  o.profiler = fake_profiler(cut_dir.path());
  TaskBuild cut = fake_isolated(
      cut_dir.path(), "echo \"KJPROF 1 -\" > /proc/self/fd/$KJUDGE_WORKER_PROFILE_FD\n" + report);
  r = run_task_mode(small_task(), cut, "benchmark", o);
  ASSERT_TRUE(r.completed) << r.failure << r.log;
  EXPECT_FALSE(r.channel_refused);
  j = to_json(r, small_task());
  ASSERT_TRUE(has_flag(j, "cupti_record")) << j.dump(1);
  EXPECT_NE(j.dump().find("the worker's process"), std::string::npos);
}

TEST(TaskRun, AnIsolatedCallTheCheckerSawLongerIsFlagged) {
  TempDir dir;
  // 2 ms a call on the checker's events, 10 µs by the worker's own: work the worker's events
  // did not see (tests/cheats/task/side_stream.cu showed 370-2442 µs against 3-4 µs).
  TaskBuild b = fake_isolated(dir.path(), isolated_report("2000000"));
  TaskRunOptions o = plain();
  o.isolate = true;
  ModeRun r = run_task_mode(small_task(), b, "benchmark", o);
  ASSERT_TRUE(r.completed) << r.failure << r.log;
  nlohmann::json j = to_json(r, small_task());
  ASSERT_TRUE(has_flag(j, "isolated_time")) << j.dump(1);
  EXPECT_TRUE(r.passed) << "a flag, not a verdict";
}

TEST(TaskRun, AnIsolatedRunsReportWithoutTheCheckersRecordIsRefused) {
  TempDir dir;
  TaskBuild b = fake_isolated(dir.path(), kBenchmarkReport);  // no "process isolated" record
  TaskRunOptions o = plain();
  o.isolate = true;
  ModeRun r = run_task_mode(small_task(), b, "benchmark", o);
  EXPECT_FALSE(r.completed);
  EXPECT_TRUE(r.channel_refused) << r.failure;
}

TEST(TaskRun, IsolateNeedsTheIsolatedBuildAndLeavesProfileModeInOneProcess) {
  TempDir dir;
  TaskBuild plain_build = fake_harness(dir.path(), kBenchmarkReport);
  TaskRunOptions o = plain();
  o.isolate = true;
  ModeRun r = run_task_mode(small_task(), plain_build, "benchmark", o);
  EXPECT_FALSE(r.completed);
  EXPECT_NE(r.failure.find("needs a build made with isolate"), std::string::npos) << r.failure;
  o.gpumode_timing = true;  // GPU MODE's timing is one process by definition
  r = run_task_mode(small_task(), plain_build, "benchmark", o);
  EXPECT_TRUE(r.completed) << r.failure << r.log;
  EXPECT_FALSE(r.isolated);
}

// `task run` and `task build` are isolated unless told otherwise; what cannot be isolated falls
// back to one process and says why, louder when --isolate was asked for by name.
TEST(TaskIsolation, IsolatedByDefaultWhereverTheCheckerCanRun) {
  for (const char* mode : {"test", "benchmark", "leaderboard", "build"}) {
    TaskIsolation t = task_isolation(true, false, mode, false);
    EXPECT_TRUE(t.isolate) << mode;
    EXPECT_EQ(t.why_not, "") << mode;
    EXPECT_FALSE(t.overridden) << mode;
    EXPECT_TRUE(task_isolation(true, true, mode, false).isolate) << mode << ": --isolate";
  }
  TaskIsolation off = task_isolation(false, true, "benchmark", false);
  EXPECT_FALSE(off.isolate);
  EXPECT_EQ(off.why_not, "--no-isolate");
  EXPECT_FALSE(off.overridden);
}

TEST(TaskIsolation, ProfileModeAndGpuModeTimingFallBackToOneProcessWithTheReason) {
  TaskIsolation profile = task_isolation(true, false, "profile", false);
  EXPECT_FALSE(profile.isolate);
  EXPECT_NE(profile.why_not.find("Nsight Compute"), std::string::npos) << profile.why_not;
  EXPECT_FALSE(profile.overridden) << "the default given up quietly: a note, not a warning";
  TaskIsolation gpumode = task_isolation(true, false, "benchmark", true);
  EXPECT_FALSE(gpumode.isolate);
  EXPECT_NE(gpumode.why_not.find("--timing gpumode"), std::string::npos) << gpumode.why_not;
  EXPECT_FALSE(gpumode.overridden);
  EXPECT_TRUE(task_isolation(true, true, "profile", false).overridden) << "--isolate by name";
  EXPECT_TRUE(task_isolation(true, true, "test", true).overridden);
  EXPECT_FALSE(task_isolation(false, true, "profile", false).overridden) << "--no-isolate";
  // The run decides as the command line does: a build with isolate would go unused there.
  EXPECT_EQ(isolation_unsupported("profile", false), profile.why_not);
  EXPECT_EQ(isolation_unsupported("leaderboard", false), "");
}

TEST(TaskRun, AnIsolateRequestInProfileModeRunsTheOneProcessHarness) {
  TempDir dir;
  TaskBuild b = fake_isolated(dir.path(), "w mode $1\nw check fail\nw end 2\n");
  TaskRunOptions o = plain();
  o.isolate = true;
  // In ncu's place: drops ncu's options and runs the harness.
  testing::write_text(dir / "ncu",
                      "#!/bin/sh\nwhile [ \"${1#./kjudge_}\" = \"$1\" ]; do shift; done\n"
                      "exec \"$@\"\n");
  fs::permissions(dir / "ncu", fs::perms::owner_all);
  o.ncu = (dir / "ncu").string();
  ModeRun r = run_task_mode(small_task(), b, "profile", o);
  EXPECT_FALSE(r.isolated);
  std::ifstream in(dir.path() / "argv.txt");
  std::string argv;
  std::getline(in, argv);
  EXPECT_NE(argv.find("kjudge_task profile"), std::string::npos) << argv << r.failure << r.log;
  EXPECT_EQ(argv.find("worker="), std::string::npos) << argv;
}

// Each stage's flags at the top of task-run.json, once each, with the stages that carried them.
TEST(LiftStageFlags, EveryDistinctFlagOnceWithItsStages) {
  const nlohmann::json stat = {{"check", "stream_creation"},
                               {"detail", "creates a stream"},
                               {"file", "submission.cu"},
                               {"line", 2},
                               {"source", "static"}};
  const nlohmann::json gap = {
      {"check", "timing_gap"}, {"detail", "benchmark 'size: 100'"}, {"source", "timing"}};
  const nlohmann::json stages = {
      {{"mode", "test"}, {"cheat_flags", {stat}}},
      {{"mode", "benchmark"}, {"cheat_flags", {stat, gap, "an old string flag"}}},
      {{"mode", "benchmark"}, {"passed", false}},  // a stage without flags
  };
  const nlohmann::json lifted = lift_stage_flags(stages);
  ASSERT_EQ(lifted.size(), 3u) << lifted.dump(1);
  nlohmann::json want = stat;
  want["stages"] = {"test", "benchmark"};
  EXPECT_EQ(lifted[0], want);
  want = gap;
  want["stages"] = {"benchmark"};
  EXPECT_EQ(lifted[1], want);
  EXPECT_EQ(lifted[2], "an old string flag");
  EXPECT_TRUE(lift_stage_flags(nlohmann::json::array()).empty());
}

// The flags of real stages: the static pass's (every stage) and an isolated benchmark's.
TEST(LiftStageFlags, TheStaticPassAndTheTimedStagesFlags) {
  TaskSpec t = small_task();
  t.files = {{"submission.cu", {}, true}};
  const std::string code = "cudaStream_t s;\ncudaStreamCreate(&s);\n";
  TempDir test_dir, bench_dir;
  testing::write_text(test_dir / "submission.cu", code);
  testing::write_text(bench_dir / "submission.cu", code);
  TaskBuild tb = fake_harness(test_dir.path(), R"(
w mode $1
w test-count 2
i=0
while read line; do w test.$i.spec $line; w test.$i.status pass; i=$((i+1)); done < $2
w check pass
w end 7
)");
  TaskBuild bb = fake_isolated(bench_dir.path(), isolated_report("2000000"));
  TaskRunOptions o = plain();
  o.isolate = true;
  ModeRun tr = run_task_mode(t, tb, "test", plain());
  ModeRun br = run_task_mode(t, bb, "benchmark", o);
  ASSERT_TRUE(tr.completed && br.completed) << tr.failure << br.failure;
  const nlohmann::json lifted =
      lift_stage_flags(nlohmann::json::array({to_json(tr, t), to_json(br, t)}));
  std::map<std::string, nlohmann::json> by_check;
  for (const auto& f : lifted) by_check[f["check"].get<std::string>()] = f["stages"];
  EXPECT_EQ(lifted.size(), by_check.size()) << "each once: " << lifted.dump(1);
  EXPECT_EQ(by_check["stream_creation"], nlohmann::json({"test", "benchmark"})) << lifted.dump(1);
  EXPECT_EQ(by_check["isolated_time"], nlohmann::json({"benchmark"})) << lifted.dump(1);
}

TEST(IsolatedTimeGap, HonestCallsOnTheH100PassTheCheatsOnesDoNot) {
  // Medians of 2026-11-24 on the H100 (results/isolate/2026-11-24/first): worker, checker (µs).
  const double crossing = 294e3;
  for (auto [worker, checker] : std::vector<std::pair<double, double>>{
           {9.20, 306.78}, {554.86, 853.31}, {8.10, 302.31}, {217360.68, 217659.92}})
    EXPECT_FALSE(isolated_time_gap(worker * 1e3, checker * 1e3, crossing))
        << worker << " / " << checker;
  // side_stream.cu, deferred_host_callback.cu isolated.
  for (auto [worker, checker] :
       std::vector<std::pair<double, double>>{{3.00, 370.69}, {3.71, 2442.47}, {4780.52, 12285.24}})
    EXPECT_TRUE(isolated_time_gap(worker * 1e3, checker * 1e3, crossing))
        << worker << " / " << checker;
  // The tenth session's (results/isolate/2026-11-24/second), each with its own crossing: the
  // honest runs with the most left over (17-20 µs), and the cheats with the least (83-90 µs).
  struct Run {
    double worker, checker, crossing;
  };
  for (Run r : std::vector<Run>{{9.1, 306.8, 280.7},
                                {52.8, 350.2, 277.7},
                                {8.0, 302.7, 277.8},
                                {214036.5, 214335.6, 278.6}})
    EXPECT_FALSE(isolated_time_gap(r.worker * 1e3, r.checker * 1e3, r.crossing * 1e3))
        << r.worker << " / " << r.checker;
  for (Run r : std::vector<Run>{{3.3, 371.0, 284.7}, {3.3, 370.9, 277.2}, {4575.0, 12762.8, 285.1}})
    EXPECT_TRUE(isolated_time_gap(r.worker * 1e3, r.checker * 1e3, r.crossing * 1e3))
        << r.worker << " / " << r.checker;
  // Just either side of the line: 25 % of the worker and 40 µs.
  EXPECT_FALSE(isolated_time_gap(100e3, (280 + 100 + 64.9) * 1e3, 280e3));
  EXPECT_TRUE(isolated_time_gap(100e3, (280 + 100 + 65.1) * 1e3, 280e3));
  EXPECT_TRUE(isolated_time_gap(10e3, 305e3, -1).has_value())
      << "without a crossing measured, the whole checker time counts against the worker";
}

}  // namespace
}  // namespace kjudge::task
