#include "run/process.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <functional>
#include <optional>

#include "test_util.h"

namespace kjudge {
namespace {

TEST(Process, CapturesMergedOutputAndExitCode) {
  auto r = run_shell("echo out; echo err >&2; exit 3", "/", 10);
  ASSERT_TRUE(r.started);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(r.timed_out);
  EXPECT_NE(r.output.find("out"), std::string::npos);
  EXPECT_NE(r.output.find("err"), std::string::npos);
  EXPECT_FALSE(r.ok());
}

TEST(Process, RunsInTheGivenDirectory) {
  testing::TempDir d;
  auto r = run_shell("pwd", d.path(), 10);
  EXPECT_EQ(r.output, d.path().string() + "\n");
}

TEST(Process, TimeoutKillsTheWholeGroup) {
  testing::TempDir d;
  // The grandchild would touch a file after 3 s if it survived the kill.
  auto r = run_shell("(sleep 3; touch survived) & sleep 30", d.path(), 0.5);
  EXPECT_TRUE(r.timed_out);
  // Far under the 30 s sleep: the run ended at its timeout. A CI machine busy with the Slurm
  // and PostgreSQL tests took 3.5 s to kill and reap the group.
  EXPECT_LT(r.wall_s, 10);
  sleep(4);
  EXPECT_FALSE(std::filesystem::exists(d / "survived"));
}

TEST(Process, BackgroundChildDoesNotOutliveANormalExit) {
  testing::TempDir d;
  auto r = run_shell("(sleep 5; touch survived) & echo done", d.path(), 10);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_LT(r.wall_s, 4) << "the judge must not wait for a background child";
  sleep(6);
  EXPECT_FALSE(std::filesystem::exists(d / "survived"));
}

TEST(Process, DaemonThatLeftTheGroupIsKilledToo) {
  testing::TempDir d;
  // setsid puts the daemon in a new session: killing the group alone would miss it.
  auto r = run_shell("setsid sh -c 'sleep 5; touch survived' & echo started", d.path(), 10);
  EXPECT_EQ(r.exit_code, 0);
  // Well under the daemon's 5 s: the run did not wait for it (loaded CI machines took ~2 s).
  EXPECT_LT(r.wall_s, 4);
  sleep(6);
  EXPECT_FALSE(std::filesystem::exists(d / "survived"));
}

TEST(Process, ReportsSignals) {
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", "kill -SEGV $$"};
  spec.timeout_s = 10;
  auto r = run_process(spec);
  EXPECT_EQ(r.signal, SIGSEGV);
  EXPECT_FALSE(r.ok());
}

TEST(Process, CapsFloodingOutputAndMarksTheCut) {
  // 20 MB of output, 4 KiB kept: the first and the last lines survive.
  auto r = run_shell("echo FIRST; yes 0123456789abcdefghij | head -c 20000000; echo; echo LAST",
                     "/", 30, 4096);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(r.truncated);
  EXPECT_GT(r.output_bytes, 20000000u);
  EXPECT_LT(r.output.size(), 4096u + 200u);
  EXPECT_EQ(r.output.rfind("FIRST", 0), 0u);
  EXPECT_NE(r.output.find("LAST"), std::string::npos);
  EXPECT_NE(r.output.find("bytes of output truncated"), std::string::npos);
}

TEST(Process, MissingProgramIsAnExitCodeNotACrashOfTheJudge) {
  ProcessSpec spec;
  spec.argv = {"/nonexistent/program"};
  auto r = run_process(spec);
  EXPECT_TRUE(r.started);
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_NE(r.output.find("cannot run"), std::string::npos);
}

TEST(Process, EnvironmentIsReplacedWhenGiven) {
  auto r = run_shell("echo \"[$KJ_A][$HOME]\"", "/", 10, 4096,
                     std::vector<std::string>{"KJ_A=1", "PATH=/usr/bin:/bin"});
  EXPECT_EQ(r.output, "[1][]\n");
}

TEST(Process, IgnoringSigtermDoesNotHelpAgainstTheTimeout) {
  auto r = run_shell("trap '' TERM; while :; do :; done", "/", 0.5);
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(r.wall_s, 3.0);
}

}  // namespace
}  // namespace kjudge

namespace kjudge {
namespace {

ProcessSpec starved_spec(const std::string& script, double timeout_s, double cap_s) {
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", script};
  spec.cwd = "/";
  spec.timeout_s = timeout_s;
  spec.starved_wall_cap_s = cap_s;
  return spec;
}

TEST(StarvedGrace, AStepWaitingPastItsWallLimitGoesOnWhileItsCpuTimeIsUnder) {
  // sleep uses no CPU: to the grace it looks like a step kept from the cores.
  ProcessResult r = run_process(starved_spec("sleep 1.5; echo done", 0.5, 10));
  EXPECT_FALSE(r.timed_out);
  EXPECT_TRUE(r.cpu_limited);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_GE(r.wall_s, 1.4);
  EXPECT_NE(r.output.find("done"), std::string::npos);
}

TEST(StarvedGrace, TheWallCapStillEndsIt) {
  ProcessResult r = run_process(starved_spec("sleep 30", 0.3, 1.2));
  EXPECT_TRUE(r.timed_out);
  EXPECT_TRUE(r.cpu_limited);
  EXPECT_GE(r.wall_s, 1.1);
  EXPECT_LT(r.wall_s, 10);
}

TEST(StarvedGrace, AStepThatUsesItsLimitInCpuTimeIsStopped) {
  // Two busy children: CPU time passes the limit by the time the wall clock reaches it, or soon
  // after on a loaded machine; far before the 60 s cap either way. The grandchildren's CPU
  // counts too (they carry the step's marker).
  ProcessResult r =
      run_process(starved_spec("(while :; do :; done) & (while :; do :; done) & wait", 0.5, 60));
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(r.wall_s, 20);
}

TEST(StarvedGrace, WithoutACpuCountTheWallClockDecides) {
  ProcessSpec spec = starved_spec("sleep 30", 0.3, 10);
  spec.tree_cpu_s = [] { return std::optional<double>(); };
  ProcessResult r = run_process(spec);
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.cpu_limited);
  EXPECT_LT(r.wall_s, 5);
}

// Issue 35: a test's wall limit less the time the machine kept it waiting (ProcessSpec::lost_s).
ProcessSpec stall_spec(const std::string& script, double timeout_s, double cap_s,
                       std::function<std::optional<double>()> lost, double condemn_s = 0) {
  ProcessSpec spec = starved_spec(script, timeout_s, 0);
  spec.stall_wall_cap_s = cap_s;
  spec.condemn_clear_s = condemn_s;
  spec.lost_s = std::move(lost);
  return spec;
}

TEST(StallGrace, AStepThatLostTimeToTheMachineGoesOnUntilItHadItsLimitClear) {
  // 1 s lost: a 0.5 s limit lasts until 1.5 s of wall time, and the step ends at 1.2 s.
  ProcessResult r = run_process(
      stall_spec("sleep 1.2; echo done", 0.5, 10, [] { return std::optional<double>(1.0); }));
  EXPECT_FALSE(r.timed_out);
  EXPECT_TRUE(r.stall_graced);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_DOUBLE_EQ(r.lost_s, 1.0);
  EXPECT_NE(r.output.find("done"), std::string::npos);
}

TEST(StallGrace, ItStopsOnceItsClearTimeReachesTheLimit) {
  ProcessResult r =
      run_process(stall_spec("sleep 30", 0.5, 10, [] { return std::optional<double>(0.7); }));
  EXPECT_TRUE(r.timed_out);
  EXPECT_GE(r.wall_s - r.lost_s, 0.5);
  EXPECT_LT(r.wall_s, 5);
}

TEST(StallGrace, ItStopsAtTheClearTimeThatCondemnsItWhateverTheMachineDid) {
  // 0.4 s clear, under the 0.5 s limit, would go on to the cap; past 0.3 s it is condemned.
  auto start = std::chrono::steady_clock::now();
  auto all_lost = [start] {
    return std::optional<double>(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() - 0.4);
  };
  ProcessResult r = run_process(stall_spec("sleep 30", 0.5, 20, all_lost, 0.3));
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(r.wall_s, 5);
}

TEST(StallGrace, TheWallCapStillEndsIt) {
  auto start = std::chrono::steady_clock::now();
  auto all_lost = [start] {
    return std::optional<double>(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  };
  ProcessResult r = run_process(stall_spec("sleep 30", 0.3, 1.2, all_lost));
  EXPECT_TRUE(r.timed_out);
  EXPECT_TRUE(r.stall_graced);
  EXPECT_GE(r.wall_s, 1.1);
  EXPECT_LT(r.wall_s, 10);
}

TEST(StallGrace, WhereTheLossCannotBeToldTheWallClockDecides) {
  ProcessResult r =
      run_process(stall_spec("sleep 30", 0.3, 10, [] { return std::optional<double>(); }));
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.stall_graced);
  EXPECT_LT(r.lost_s, 0);
  EXPECT_LT(r.wall_s, 5);
}

TEST(StarvedGrace, OffByDefault) {
  ProcessResult r = run_shell("sleep 30", "/", 0.3);
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.cpu_limited);
}

}  // namespace
}  // namespace kjudge
