#include "run/spawn.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>

#include <atomic>
#include <thread>

#include "run/process.h"
#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;

void write_program(const fs::path& file, const std::string& text) {
  testing::write_text(file, text);
  fs::permissions(file, fs::perms::owner_all);
}

TEST(ExecCandidates, LookLikeExecvp) {
  EXPECT_EQ(exec_candidates("./a.out", "/x"), std::vector<std::string>{"./a.out"});
  EXPECT_EQ(exec_candidates("/bin/sh", "/x"), std::vector<std::string>{"/bin/sh"});
  EXPECT_EQ(exec_candidates("cc", "/a::/b"), (std::vector<std::string>{"/a/cc", "cc", "/b/cc"}));
  EXPECT_EQ(exec_candidates("cc", nullptr), (std::vector<std::string>{"/bin/cc", "/usr/bin/cc"}));
  EXPECT_TRUE(exec_candidates("", "/a").empty());
}

// The step's own PATH finds its program (the judge's PATH does not have the folder), past a
// folder where the name is not executable.
TEST(Spawn, AProgramIsFoundOnTheStepsPath) {
  testing::TempDir d;
  fs::create_directories(d / "no");
  fs::create_directories(d / "yes");
  testing::write_text(d / "no" / "hello", "#!/bin/sh\necho wrong\n");
  write_program(d / "yes" / "hello", "#!/bin/sh\necho right \"$1\"\n");
  ProcessSpec spec;
  spec.argv = {"hello", "there"};
  spec.env = std::vector<std::string>{"PATH=" + (d / "no").string() + ":" + (d / "yes").string()};
  ProcessResult r = run_process(spec);
  ASSERT_TRUE(r.ok()) << r.output;
  EXPECT_EQ(r.output, "right there\n");
}

// execvp runs a file without "#!" with /bin/sh; so does the step.
TEST(Spawn, AScriptWithoutAnInterpreterLineRunsWithSh) {
  testing::TempDir d;
  write_program(d / "plain", "echo plain \"$1\"\n");
  ProcessSpec spec;
  spec.argv = {"./plain", "arg"};
  spec.cwd = d.path();
  ProcessResult r = run_process(spec);
  ASSERT_TRUE(r.ok()) << r.output;
  EXPECT_EQ(r.output, "plain arg\n");
}

TEST(Spawn, ANonExecutableProgramSaysPermissionDenied) {
  testing::TempDir d;
  testing::write_text(d / "x", "#!/bin/sh\n");
  ProcessSpec spec;
  spec.argv = {"x"};
  spec.env = std::vector<std::string>{"PATH=" + d.path().string()};
  ProcessResult r = run_process(spec);
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_NE(r.output.find("kjudge: cannot run x: Permission denied"), std::string::npos)
      << r.output;
}

TEST(Spawn, AMissingDirectoryOrCgroupIsTheStepsExitNotTheJudgesFault) {
  ProcessSpec spec;
  spec.argv = {"/bin/true"};
  spec.cwd = "/nonexistent-kjudge-dir";
  ProcessResult r = run_process(spec);
  EXPECT_TRUE(r.started);
  EXPECT_EQ(r.exit_code, 126);
  EXPECT_NE(r.output.find("kjudge: cannot enter /nonexistent-kjudge-dir: No such file"),
            std::string::npos)
      << r.output;
  spec.cwd.clear();
  spec.cgroups = {"/nonexistent-kjudge-cgroup"};
  r = run_process(spec);
  EXPECT_EQ(r.exit_code, 126);
  EXPECT_NE(r.output.find("kjudge: cannot join cgroup /nonexistent-kjudge-cgroup/cgroup.procs"),
            std::string::npos)
      << r.output;
}

std::atomic<int> g_handled{0};
void count_signal(int) { g_handled.fetch_add(1); }

// The child shares the judge's memory until exec: a judge's handler must not run there, and a
// signal the judge ignores stays ignored for the step, as across fork and exec.
TEST(Spawn, TheJudgesHandlersStayTheJudges) {
  struct sigaction sa {
  }, old_usr1{}, old_usr2{};
  sa.sa_handler = count_signal;
  sigaction(SIGUSR1, &sa, &old_usr1);
  sa.sa_handler = SIG_IGN;
  sigaction(SIGUSR2, &sa, &old_usr2);
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", "kill -USR2 $$; echo survived; kill -USR1 $$; echo not here"};
  ProcessResult r = run_process(spec);
  sigaction(SIGUSR1, &old_usr1, nullptr);
  sigaction(SIGUSR2, &old_usr2, nullptr);
  EXPECT_EQ(r.output, "survived\n");
  EXPECT_EQ(r.signal, SIGUSR1);
  EXPECT_EQ(g_handled.load(), 0);
}

// Many steps at once from many threads, each with its own output (the clone shares memory).
TEST(Spawn, StepsFromManyThreadsKeepTheirOwnOutput) {
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([t, &wrong] {
      for (int i = 0; i < 20; ++i) {
        ProcessSpec spec;
        const std::string word = std::to_string(t) + "-" + std::to_string(i);
        spec.argv = {"/bin/echo", word};
        ProcessResult r = run_process(spec);
        if (!r.ok() || r.output != word + "\n") wrong.fetch_add(1);
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace kjudge
