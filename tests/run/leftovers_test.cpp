#include "run/leftovers.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "run/cgroup.h"
#include "run/process.h"
#include "test_util.h"

namespace kjudge {
namespace {

// `sleep 300` with `env` as its whole environment; the caller waits for it.
pid_t start_sleeper(std::vector<std::string> env) {
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  char* argv[] = {const_cast<char*>("/bin/sleep"), const_cast<char*>("300"), nullptr};
  pid_t pid = -1;
  if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv, envp.data()) != 0) return -1;
  return pid;
}

// Gone, or a zombie whose parent has not reaped it yet, within `wait_s`.
bool dies_within(pid_t pid, double wait_s) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait_s);
  do {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string s((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const std::size_t close = s.rfind(')');
    if (s.empty() || (close != std::string::npos && s.compare(close, 3, ") Z") == 0)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  } while (std::chrono::steady_clock::now() < until);
  return false;
}

TEST(Leftovers, AMarkedProcessIsKilledAndAnotherMarkerIsLeftAlone) {
  const std::string marker = next_step_marker();
  // The same text plus a digit: a prefix match would take it.
  pid_t marked = start_sleeper({"A=1", std::string(kStepMarkerVar) + "=" + marker, "B=2"});
  pid_t other = start_sleeper({std::string(kStepMarkerVar) + "=" + marker + "0"});
  ASSERT_GT(marked, 0);
  ASSERT_GT(other, 0);
  kill_marked(marker);
  int status = 0;
  ASSERT_EQ(waitpid(marked, &status, 0), marked);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  EXPECT_EQ(waitpid(other, &status, WNOHANG), 0) << "a process of another step was killed";
  kill(other, SIGKILL);
  waitpid(other, &status, 0);
}

class LeftoversInCgroup : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cgroup_place().has_pids() && !cgroup_place().has_memory())
      GTEST_SKIP() << "no step cgroup here: " << cgroup_place().describe();
  }
  testing::TempDir dir_;
};

// The sandbox's case: a daemon that left the process group and dropped its environment (bwrap
// clears it) carries no marker, but its cgroup lists it: killed when the step's first process
// ends, not only when the group is removed.
TEST_F(LeftoversInCgroup, ASealedStepsUnmarkedDaemonIsKilledWhenTheStepEnds) {
  std::optional<StepCgroup> group = StepCgroup::create({64, 256ull << 20});
  ASSERT_TRUE(group.has_value());
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c",
               "env -i setsid sh -c 'echo $$ > daemon.pid; exec sleep 300' & "
               "while [ ! -s daemon.pid ]; do sleep 0.05; done; echo started"};
  spec.cwd = dir_.path();
  spec.timeout_s = 20;
  spec.cgroups = group->dirs();
  spec.sealed_in_cgroups = true;
  ProcessResult r = run_process(spec);
  ASSERT_TRUE(r.ok()) << r.output;
  EXPECT_LT(r.wall_s, 10) << "the step waited for its daemon";
  std::ifstream in(dir_ / "daemon.pid");
  pid_t daemon = 0;
  ASSERT_TRUE(in >> daemon);
  EXPECT_TRUE(dies_within(daemon, 2)) << "the daemon outlived its step";
}

}  // namespace
}  // namespace kjudge
