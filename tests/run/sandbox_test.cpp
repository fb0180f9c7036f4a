#include "run/sandbox.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "run/cgroup.h"
#include "run/seccomp_filter.h"
#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// Tests that need no bwrap: the argv itself.
TEST(SandboxCommand, NamesEveryFenceAndEndsWithTheStep) {
  SandboxPolicy p;
  p.workspace = "/tmp/ws";
  p.env = {"PATH=/usr/bin", "A=b=c"};
  auto cmd = sandbox_command(p, {"make", "--unshare-net"}, 7);
  std::string joined;
  for (const auto& a : cmd) joined += a + " ";
  for (const char* flag :
       {"--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net",
        "--unshare-cgroup-try", "--die-with-parent", "--new-session", "--clearenv",
        "--ro-bind /usr /usr", "--tmpfs /tmp", "--bind /tmp/ws /tmp/ws", "--chdir /tmp/ws",
        "--setenv A b=c", "--seccomp 7", "--hostname kjudge"}) {
    EXPECT_TRUE(contains(joined, flag)) << flag << " missing from: " << joined;
  }
  // The step's own argv follows "--", so its options never reach bwrap.
  ASSERT_GE(cmd.size(), 3u);
  EXPECT_EQ(cmd[cmd.size() - 3], "--");
  EXPECT_EQ(cmd.back(), "--unshare-net");
  EXPECT_FALSE(contains(joined, "/work")) << joined;
  EXPECT_FALSE(contains(joined, "/root")) << joined;
  EXPECT_FALSE(contains(joined, "/dev/nvidia")) << "gpu=false binds no GPU node";
}

TEST(SandboxCommand, RejectsARelativeWorkspaceAndABadEnvEntry) {
  SandboxPolicy p;
  p.workspace = "ws";
  EXPECT_THROW(sandbox_command(p, {"true"}), std::invalid_argument);
  p.workspace = "/tmp/ws";
  p.env = {"NOEQUALS"};
  EXPECT_THROW(sandbox_command(p, {"true"}), std::invalid_argument);
}

// bwrap's options (issue 31) go through a descriptor: the command it is started with names only
// `--args FD`, "--" and the step's own words; the descriptor holds every option, each word
// NUL-terminated, in order, "--" left out (bwrap drops what follows one inside an args file).
TEST(SandboxCommand, OptionsGoThroughADescriptor) {
  SandboxPolicy p;
  p.workspace = "/tmp/ws";
  p.env = {"SECRET_LOOKING=value"};
  const std::vector<std::string> cmd = sandbox_command(p, {"./test.out", "--perf"}, 7);
  const ArgsThroughFd t = args_through_fd(cmd, 9);
  EXPECT_EQ(t.argv,
            (std::vector<std::string>{cmd.front(), "--args", "9", "--", "./test.out", "--perf"}));
  std::string want;
  for (std::size_t i = 1; i + 3 < cmd.size(); ++i) want += cmd[i] + std::string(1, '\0');
  EXPECT_EQ(t.data, want);
  EXPECT_TRUE(contains(t.data, std::string("--setenv\0SECRET_LOOKING\0value\0", 30)));
  for (const auto& word : t.argv) EXPECT_FALSE(contains(word, "SECRET_LOOKING")) << word;
  EXPECT_THROW(args_through_fd({"bwrap", "--unshare-pid"}, 9), std::invalid_argument);
}

TEST(SeccompFilter, ExportsAProgram) {
  // A classic-BPF instruction is 8 bytes; a filter denying ~30 syscalls has dozens of them.
  const std::string& prog = seccomp_bpf_program();
  EXPECT_EQ(prog.size() % 8, 0u);
  EXPECT_GT(prog.size(), 8u * 30);
}

// Everything below runs real steps in bwrap.
class Sandbox : public ::testing::Test {
 protected:
  void SetUp() override {
    ws_ = dir_ / "ws";
    sibling_ = dir_ / "other-ws";
    fs::create_directories(ws_);
    testing::write_text(sibling_ / "secret", "another step's file\n");
    policy_.workspace = ws_;
    policy_.env = {"PATH=/usr/local/cuda/bin:/usr/bin:/bin", "LANG=C", "KJ_GIVEN=yes"};
    policy_.limits.cpu_s = 60;
    std::string why;
    if (!sandbox_available(policy_, &why)) {
      GTEST_SKIP() << "bwrap cannot build the sandbox on this machine (needs user namespaces): "
                   << why;
    }
  }

  ProcessResult run(const std::string& script, double timeout_s = 30) {
    return run_sandboxed(policy_, {"/bin/sh", "-c", script}, timeout_s);
  }

  // Compiles a C program on the host into the workspace (a test's probe, not a step).
  void compile_c(const std::string& name, const std::string& source) {
    testing::write_text(ws_ / (name + ".c"), source);
    auto r = run_shell("cc -O1 -o " + name + " " + name + ".c", ws_, 60);
    ASSERT_TRUE(r.ok()) << r.output;
  }

  testing::TempDir dir_;
  fs::path ws_, sibling_;
  SandboxPolicy policy_;
};

TEST_F(Sandbox, WritesItsWorkspaceAndAPrivateTmp) {
  const std::string name = "kjudge-sandbox-probe-" + std::to_string(getpid());
  auto r = run("echo built > out.txt && echo tmp > /tmp/" + name + " && cat /tmp/" + name);
  ASSERT_TRUE(r.ok()) << r.output;
  EXPECT_EQ(r.output, "tmp\n");
  EXPECT_EQ(testing::read_text(ws_ / "out.txt"), "built\n");
  EXPECT_FALSE(fs::exists(fs::path("/tmp") / name)) << "the sandbox's /tmp is the host's";
}

TEST_F(Sandbox, CannotWriteOutsideItsWorkspace) {
  for (const std::string& target : std::vector<std::string>{
           "/usr/kjudge-probe", "/usr/bin/kjudge-probe", "/etc/passwd", "/kjudge-probe",
           "/proc/kjudge-probe", (sibling_ / "secret").string()}) {
    auto r = run("echo x > " + target);
    EXPECT_TRUE(r.started) << r.error;
    EXPECT_NE(r.exit_code, 0) << target << " was writable: " << r.output;
  }
  EXPECT_EQ(testing::read_text(sibling_ / "secret"), "another step's file\n");
  // Beside the workspace is the sandbox's private /tmp (its mount point's parents): a write there
  // may succeed but never reaches the host.
  auto r = run("echo x > " + (dir_ / "beside-ws").string());
  EXPECT_TRUE(r.started) << r.error;
  EXPECT_FALSE(fs::exists(dir_ / "beside-ws"));
}

TEST_F(Sandbox, CannotSeeTheHost) {
  const std::string paths = "/work /root /home /opt /var /etc/shadow /etc/ssh " +
                            sibling_.string() + " " + std::string(KJUDGE_SOURCE_DIR);
  auto r = run("for p in " + paths + "; do test -e $p && echo VISIBLE $p; done; ls /; true");
  ASSERT_TRUE(r.ok()) << r.output;
  EXPECT_FALSE(contains(r.output, "VISIBLE")) << r.output;
}

TEST_F(Sandbox, HasNoNetwork) {
  int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(listen(listener, 4), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const std::string connect =
      "bash -c 'echo > /dev/tcp/127.0.0.1/" + std::to_string(ntohs(addr.sin_port)) + "'";

  // The control: the same connection works from the host, so the probe itself is sound.
  auto direct = run_shell(connect, "/", 10);
  EXPECT_TRUE(direct.ok()) << direct.output;

  auto r = run(connect);
  EXPECT_TRUE(r.started) << r.error;
  EXPECT_NE(r.exit_code, 0) << "the host's 127.0.0.1 was reachable: " << r.output;
  close(listener);

  // Only a loopback interface: /proc/net/dev has two header lines, then one per interface.
  auto ifs = run("tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '");
  ASSERT_TRUE(ifs.ok()) << ifs.output;
  EXPECT_EQ(ifs.output, "lo\n");
}

TEST_F(Sandbox, SeesOnlyTheGivenEnvironment) {
  auto r = run("env | sort");
  ASSERT_TRUE(r.ok()) << r.output;
  // sh adds PWD itself; nothing of the judge's environment (HOME, KJUDGE_STEP) comes in.
  EXPECT_EQ(r.output, "KJ_GIVEN=yes\nLANG=C\nPATH=/usr/local/cuda/bin:/usr/bin:/bin\nPWD=" +
                          ws_.string() + "\n");
}

TEST_F(Sandbox, RunsAsNobodyWithHostnameKjudge) {
  auto r = run("id -u; id -g; hostname 2>/dev/null || cat /proc/sys/kernel/hostname");
  ASSERT_TRUE(r.ok()) << r.output;
  EXPECT_EQ(r.output, "65534\n65534\nkjudge\n");
}

// The seccomp filter, checked from inside: each call prints its errno (0 = it worked).
constexpr const char* kSyscallProbe = R"(#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
static int err(long rc) { return rc < 0 ? errno : 0; }
int main(int argc, char** argv) {
  pid_t child = fork();
  if (child == 0) { pause(); _exit(0); }
  int attach = err(ptrace(PTRACE_ATTACH, child, 0, 0));
  kill(child, SIGKILL);
  waitpid(child, 0, 0);
  int traceme = 0;
  pid_t c2 = fork();
  if (c2 == 0) _exit(err(ptrace(PTRACE_TRACEME, 0, 0, 0)));
  int status;
  waitpid(c2, &status, 0);
  traceme = WEXITSTATUS(status);
  if (argc > 1) {  /* ptrace only: the control run on the host must not mount anything */
    printf("attach=%d traceme=%d\n", attach, traceme);
    return 0;
  }
  mkdir("mnt", 0755);
  int mnt = err(mount("none", "mnt", "tmpfs", 0, 0));
  int unsh = err(unshare(CLONE_NEWUSER));
  long c3 = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
  if (c3 == 0) _exit(0);
  int clone_ns = err(c3);
  if (c3 > 0) waitpid(c3, 0, 0);
  printf("attach=%d traceme=%d mount=%d unshare=%d clone_newuser=%d\n", attach, traceme, mnt,
         unsh, clone_ns);
  return 0;
}
)";

TEST_F(Sandbox, CannotPtraceMountOrMakeNamespaces) {
  compile_c("probe", kSyscallProbe);
  auto r = run_sandboxed(policy_, {"./probe"}, 30);
  ASSERT_TRUE(r.ok()) << r.output;
  EXPECT_EQ(r.output, "attach=1 traceme=1 mount=1 unshare=1 clone_newuser=1\n");  // EPERM
  // The control: on the host (as root) the same program may trace its own child, so the EPERM
  // above comes from the sandbox. (Only ptrace: as root on the host the mount would succeed.)
  auto direct = run_shell("./probe ptrace-only", ws_, 30);
  EXPECT_TRUE(contains(direct.output, "attach=0 traceme=0")) << direct.output;
}

constexpr const char* kForkCounter = R"(#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int main(void) {
  int made = 0, e = 0;
  for (int i = 0; i < 2000; ++i) {
    pid_t p = fork();
    if (p == 0) { pause(); _exit(0); }
    if (p < 0) { e = errno; break; }
    ++made;
  }
  printf("made=%d errno=%s\n", made, strerror(e));
  fflush(stdout);
  return 0;
}
)";

TEST_F(Sandbox, ForkBombStopsAtTheProcessLimit) {
  if (!cgroup_place().has_pids()) {
    GTEST_SKIP() << "no pids cgroup here (" << cgroup_place().describe()
                 << "); RLIMIT_NPROC alone does not bind uid 0";
  }
  policy_.limits.processes = 64;
  compile_c("forks", kForkCounter);
  auto r = run_sandboxed(policy_, {"./forks"}, 30);
  ASSERT_TRUE(r.ok()) << r.output;
  int made = -1;
  char err[64] = {};
  ASSERT_EQ(std::sscanf(r.output.c_str(), "made=%d errno=%63[^\n]", &made, err), 2) << r.output;
  ASSERT_LT(made, 64) << "the pids cgroup did not hold; not starting the real bomb";
  EXPECT_GT(made, 50) << "the limit should not be far below what was asked";
  EXPECT_STREQ(err, "Resource temporarily unavailable");

  // A real bomb runs until the timeout, then the whole tree goes.
  auto bomb = run_sandboxed(policy_, {"/bin/bash", "-c", ":(){ :|:& };:; sleep 100"}, 2);
  EXPECT_TRUE(bomb.timed_out) << bomb.output;
  EXPECT_LT(bomb.wall_s, 10);
}

TEST_F(Sandbox, BackgroundProcessesDieWithTheStep) {
  auto r = run("(sleep 5; touch survived) & setsid sh -c 'sleep 5; touch survived2' & echo ok");
  ASSERT_TRUE(r.ok()) << r.output;
  EXPECT_LT(r.wall_s, 4) << "the step must not wait for its background processes";
  sleep(6);
  EXPECT_FALSE(fs::exists(ws_ / "survived"));
  EXPECT_FALSE(fs::exists(ws_ / "survived2"));
}

TEST_F(Sandbox, FileBiggerThanTheLimitFails) {
  policy_.limits.file_size_bytes = 1 << 20;
  auto r = run("head -c 3000000 /dev/zero > big");
  EXPECT_FALSE(r.ok()) << r.output;
  EXPECT_LE(fs::file_size(ws_ / "big"), 1u << 20);
}

// A read-only extra path (such as the profiler library) under /tmp is visible above the
// private /tmp, and stays read-only; the kept descriptor reaches the step.
TEST_F(Sandbox, ReadOnlyPathUnderTmpIsVisibleAndKeptFdReachesTheStep) {
  const fs::path tool = dir_ / "tool.txt";
  testing::write_text(tool, "the tool\n");
  policy_.ro_paths = {tool};
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  policy_.keep_fds = {fds[1]};
  auto r = run("cat " + tool.string() + " && ! (echo x >> " + tool.string() +
               ") 2>/dev/null && echo wrote-through-fd >&" + std::to_string(fds[1]));
  close(fds[1]);
  char buf[64] = {};
  ssize_t n = read(fds[0], buf, sizeof buf - 1);
  close(fds[0]);
  EXPECT_TRUE(r.ok()) << r.output;
  EXPECT_NE(r.output.find("the tool"), std::string::npos) << r.output;
  EXPECT_EQ(testing::read_text(tool), "the tool\n");
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(buf), "wrote-through-fd\n");
}

// The memory limit covers the whole step: here a shell pipeline whose `tail` holds 512 MiB.
TEST_F(Sandbox, MemoryLimitStopsTheStepAndSaysSo) {
  policy_.memory_bytes = 128ull << 20;
  auto r = run("head -c 536870912 /dev/zero | tail -c 536870912 | wc -c");
  ASSERT_TRUE(r.started) << r.error;
  EXPECT_FALSE(r.ok()) << r.output;
  EXPECT_EQ(r.output.find("536870912"), std::string::npos) << r.output;
  if (cgroup_place().has_memory()) {
    EXPECT_EQ(r.limit_exceeded, "used more memory than its limit of 128 MiB") << r.output;
    EXPECT_GT(r.memory_peak_bytes, 100ull << 20);
    EXPECT_LE(r.memory_peak_bytes, (128ull << 20) + (1 << 20));
  }
}

// The check runs in a workspace of its own: a full one (here 2 MiB against a 1 MiB limit; in CI
// it was /tmp holding a build) says nothing about whether bwrap works.
TEST_F(Sandbox, AvailabilityCheckIgnoresWhatTheWorkspaceHolds) {
  testing::write_text(ws_ / "big", std::string(2 << 20, 'x'));
  policy_.workspace_bytes = 1 << 20;
  std::string why;
  EXPECT_TRUE(sandbox_available(policy_, &why)) << why;
  EXPECT_TRUE(fs::exists(ws_ / "big"));
}

TEST_F(Sandbox, CpuLimitKillsASpinningProcess) {
  policy_.limits.cpu_s = 1;
  auto r = run_sandboxed(policy_, {"/bin/sh", "-c", "while :; do :; done"}, 30);
  ASSERT_TRUE(r.started) << r.error;
  EXPECT_FALSE(r.timed_out) << "the CPU limit, not the wall clock, should end it";
  EXPECT_LT(r.wall_s, 10);
  // bwrap reports a signal-killed step as exit 128+signal.
  EXPECT_TRUE(r.exit_code == 128 + SIGXCPU || r.exit_code == 128 + SIGKILL || r.signal == SIGXCPU ||
              r.signal == SIGKILL)
      << "exit " << r.exit_code << " signal " << r.signal << ": " << r.output;
}

TEST_F(Sandbox, NvccCompilesAndLinks) {
  if (!fs::exists("/usr/local/cuda/bin/nvcc")) GTEST_SKIP() << "no /usr/local/cuda/bin/nvcc";
  testing::write_text(ws_ / "k.cu", R"(#include <cstdio>
__global__ void add(int* x) { x[threadIdx.x] += 1; }
int main() {
  int* d = nullptr;
  if (cudaMalloc(&d, 32 * sizeof(int)) != cudaSuccess) { std::puts("no device"); return 0; }
  add<<<1, 32>>>(d);
  cudaDeviceSynchronize();
  cudaFree(d);
  std::puts("ran");
  return 0;
}
)");
  auto r = run("nvcc -o k k.cu && ./k", 300);
  ASSERT_TRUE(r.ok()) << r.output;
  EXPECT_TRUE(fs::exists(ws_ / "k"));
  EXPECT_TRUE(r.output == "ran\n" || r.output == "no device\n") << r.output;
}

TEST_F(Sandbox, StartupOverhead) {
  constexpr int kRuns = 20;
  using Clock = std::chrono::steady_clock;
  ProcessSpec direct;
  direct.argv = {"true"};
  auto t0 = Clock::now();
  for (int i = 0; i < kRuns; ++i) ASSERT_TRUE(run_process(direct).ok());
  auto t1 = Clock::now();
  for (int i = 0; i < kRuns; ++i) ASSERT_TRUE(run_sandboxed(policy_, {"true"}, 30).ok());
  auto t2 = Clock::now();
  auto ms = [](auto d) { return std::chrono::duration<double, std::milli>(d).count() / kRuns; };
  std::printf("[ overhead ] `true`: %.2f ms direct, %.2f ms sandboxed (+%.2f ms per step)\n",
              ms(t1 - t0), ms(t2 - t1), ms(t2 - t1) - ms(t1 - t0));
}

}  // namespace
}  // namespace kjudge
