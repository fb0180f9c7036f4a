// Descriptors the judge itself inherited never reach a process it starts (issue 31). Measured
// before: a judge started with fd 77 open on a host file and 78 on a secret handed both to a
// sandboxed test, which wrote the one and read the other. Here the test process opens them the
// same way (inheritable, as a parent's `77>>file 78<file` leaves them) and every way the judge
// starts a process is tried: a step with and without the sandbox, with a descriptor it is meant
// to keep, the machine probe and the GPU watcher (nvidia-smi, here a stand-in on PATH).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <thread>

#include "eval/step_runner.h"
#include "perf/gpu_conditions.h"
#include "run/close_fds.h"
#include "run/machine.h"
#include "run/sandbox.h"
#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSecret = "inherited-fd-secret-3b71";
constexpr const char* kHostText = "host file\n";
constexpr int kHostFd = 77, kSecretFd = 78;

// Lists the descriptors from 3 up that it holds, prints what 78 holds, writes into 77, in that
// order. The list is made with the shell's own test, so nothing the listing opens shows in it.
// (dash takes one-digit descriptors only in redirections: 77 and 78 through /proc.)
const char* kProbe = R"SH(
open=""
for n in $(seq 3 1100); do [ -e /proc/$$/fd/$n ] && open="$open $n"; done
echo "open:$open."
cat /proc/$$/fd/78 2>&1
echo planted >> /proc/$$/fd/77
true
)SH";

class InheritedFds : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::write_text(dir_ / "host.txt", kHostText);
    testing::write_text(dir_ / "secret.txt", kSecret);
    const int host = open((dir_ / "host.txt").c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    const int secret = open((dir_ / "secret.txt").c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(host, 0);
    ASSERT_GE(secret, 0);
    ASSERT_EQ(dup2(host, kHostFd), kHostFd);  // dup2's copy is inheritable
    ASSERT_EQ(dup2(secret, kSecretFd), kSecretFd);
    close(host);
    close(secret);
    fs::create_directories(dir_ / "ws");
  }
  void TearDown() override {
    close(kHostFd);
    close(kSecretFd);
  }

  ProcessResult step(bool sandbox, const std::vector<int>& keep = {}) {
    StepSettings settings;
    settings.sandbox = sandbox;
    MachineInfo machine;
    machine.cpu_count = 2;
    StepExtras extras;
    extras.argv = {"/bin/sh", "-c", kProbe};
    extras.inherit_fds = keep;
    return run_step(settings, machine, "probe", dir_ / "ws", 20, extras);
  }

  void expect_untouched(const ProcessResult& r) {
    EXPECT_EQ(r.output.find(kSecret), std::string::npos) << r.output;
    EXPECT_EQ(testing::read_text(dir_ / "host.txt"), kHostText) << "the step wrote the host's file";
  }

  testing::TempDir dir_;
};

// The fixture is a real hazard: a child started the plain way (popen) has both.
TEST_F(InheritedFds, APlainChildWouldHaveThem) {
  auto r =
      testing::run_capture("sh -c '[ -e /proc/$$/fd/77 ] && [ -e /proc/$$/fd/78 ] && echo both'");
  EXPECT_NE(r.out.find("both"), std::string::npos) << r.out;
}

TEST_F(InheritedFds, AStepWithoutTheSandboxGetsNone) {
  ProcessResult r = step(false);
  ASSERT_TRUE(r.started) << r.error;
  EXPECT_NE(r.output.find("open:."), std::string::npos) << r.output;
  expect_untouched(r);
}

TEST_F(InheritedFds, AStepInTheSandboxGetsNone) {
  SandboxPolicy probe;
  probe.workspace = dir_ / "ws";
  std::string why;
  if (!sandbox_available(probe, &why)) GTEST_SKIP() << "bubblewrap unusable here: " << why;
  // Neither the seccomp program nor bwrap's options (--args) stay open in the step either.
  ProcessResult r = step(true);
  ASSERT_TRUE(r.started) << r.error;
  EXPECT_NE(r.output.find("open:."), std::string::npos) << r.output;
  expect_untouched(r);
}

// What a step is meant to keep it keeps, and only that, in the sandbox or not.
TEST_F(InheritedFds, OnlyTheDescriptorsAStepKeepsReachIt) {
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
  const int kept = fcntl(fds[1], F_DUPFD_CLOEXEC, 90);
  ASSERT_GE(kept, 90);
  const std::string want = "open: " + std::to_string(kept) + ".";
  ProcessResult plain = step(false, {kept});
  EXPECT_NE(plain.output.find(want), std::string::npos) << plain.output;
  expect_untouched(plain);
  SandboxPolicy probe;
  probe.workspace = dir_ / "ws";
  if (sandbox_available(probe)) {
    ProcessResult boxed = step(true, {kept});
    EXPECT_NE(boxed.output.find(want), std::string::npos) << boxed.output;
    expect_untouched(boxed);
  }
  for (int fd : {fds[0], fds[1], kept}) close(fd);
}

// The machine probe and the GPU watcher start nvidia-smi themselves; a stand-in first on PATH
// says which of 77 and 78 it holds, in a GPU's name and in a sample's temperature.
TEST_F(InheritedFds, TheMachineProbeAndTheGpuWatcherPassNone) {
  testing::write_text(dir_ / "bin/nvidia-smi", R"SH(#!/bin/sh
n=0
for f in 77 78; do [ -e /proc/$$/fd/$f ] && n=$((n + 1)); done
case "$1" in
  --query-gpu=index*) echo "0, leaked $n, 9.0, GPU-kjudge-test, 550.00";;
  *) while :; do echo "1980, $n, 100, 50, 0x0"; sleep 0.05; done;;
esac
)SH");
  fs::permissions(dir_ / "bin/nvidia-smi", fs::perms::owner_all);
  const std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  setenv("PATH", ((dir_ / "bin").string() + ":" + old_path).c_str(), 1);
  MachineInfo m = probe_machine();
  GpuWatchReport watched;
  {
    GpuWatcher watcher(0, 50);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    watched = watcher.stop();
  }
  setenv("PATH", old_path.c_str(), 1);
  ASSERT_EQ(m.gpus.size(), 1u);
  EXPECT_EQ(m.gpus[0].name, "leaked 0");
  ASSERT_GT(watched.samples, 0);
  EXPECT_EQ(watched.max_temperature_c, 0) << "nvidia-smi held the judge's descriptors";
}

// The helper itself, in a forked child: everything from 3 up goes but what it is told to keep,
// however high.
TEST(CloseFds, KeepsOnlyWhatItIsTold) {
  const pid_t pid = fork();
  if (pid == 0) {
    int a = open("/dev/null", O_RDONLY), b = dup2(a, 500), c = dup2(a, 1000);
    const int keep[] = {b, 2, 9999};
    close_fds_except(keep, 3);
    const bool ok = fcntl(a, F_GETFD) < 0 && fcntl(b, F_GETFD) >= 0 && fcntl(c, F_GETFD) < 0 &&
                    fcntl(2, F_GETFD) >= 0;
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

}  // namespace
}  // namespace kjudge
