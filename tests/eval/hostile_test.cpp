// The hostile corpus (tests/hostile/, issue 3): solutions that attack the judge, graded through the
// Evaluator with the sandbox on. Each must get its verdict, and the host is checked afterwards for
// the effect it attempted. Every probe *tries* and reports; none would harm the host if the
// sandbox failed open (bogus module and reboot arguments, unroutable addresses, bounded writes).
//
// The probes answer right (solve() == 42, so `pass`) only when their attack worked as far as they
// can see, so an unexpected `pass` is a breach. Writes whose landing place only the host can see
// always answer wrong, and their markers are looked for on the host.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <mutex>

#include "eval/evaluator.h"
#include "run/cgroup.h"
#include "run/sandbox.h"
#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;
using V = Verdict;

const fs::path kCorpus = fs::path(KJUDGE_SOURCE_DIR) / "tests/hostile";
constexpr const char* kSiblingSecret = "sibling-secret-7f3a";
constexpr const char* kJournalSecret = "journal-secret-91bc";
constexpr const char* kEnvSecret = "env-secret-c04d";
// What the judge's own process holds open when grading starts, inheritable (inherited_fds*): a
// host file on descriptor 77 and a secret on 78.
constexpr const char* kFdSecret = "kjhostile-fd-secret-5e19";
constexpr const char* kFdHostText = "kjhostile-fd-host\n";
constexpr int kHostFd = 77, kSecretFd = 78;
constexpr double kTimeout = 3;

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

using Check = std::function<void(const GradedSolution&)>;

struct Case {
  std::string name;               // directory under tests/hostile/
  std::vector<Verdict> verdicts;  // any of these
  // Checks of the case's own effect beyond the ones every case gets (see HostileCorpus).
  Check check = nullptr;
};

Check test_log_has(const std::string& text) {
  return [text](const GradedSolution& g) { EXPECT_TRUE(contains(g.test.log, text)) << g.test.log; };
}
Check test_log_lacks(const std::string& text) {
  return
      [text](const GradedSolution& g) { EXPECT_FALSE(contains(g.test.log, text)) << g.test.log; };
}
Check build_log_has(const std::string& text) {
  return
      [text](const GradedSolution& g) { EXPECT_TRUE(contains(g.build.log, text)) << g.build.log; };
}

// Refused before it ran, for the name it defines, and the test program never started.
Check refused_for_defining(const std::string& name) {
  return [name](const GradedSolution& g) {
    EXPECT_TRUE(contains(g.detail, "refused:")) << g.detail;
    EXPECT_TRUE(contains(g.detail, "defines '" + name + "'")) << g.detail;
    EXPECT_FALSE(g.test.ran);
  };
}

// The step was killed at the limit, not left to finish; wall_s is of the final attempt alone.
void killed_at_timeout(const GradedSolution& g) {
  EXPECT_TRUE(g.test.timed_out);
  EXPECT_LT(g.test.wall_s, kTimeout + 2);
}

// The judge kept a capped log of a 64 MiB flood, and counted all of it.
void log_capped(const GradedSolution& g) {
  EXPECT_TRUE(g.test.log_truncated);
  EXPECT_LE(g.test.log.size(), 32u * 1024);
  EXPECT_GE(g.test.log_bytes, 60u << 20);
}

// A memory hog is stopped by the step's memory cgroup, where there is one, or else by the
// per-process RLIMIT_DATA (malloc fails).
void memory_stopped(const GradedSolution& g) {
  if (cgroup_place().has_memory()) {
    EXPECT_TRUE(contains(g.detail, "more memory than its limit of 256 MiB")) << g.detail;
  } else {
    EXPECT_TRUE(contains(g.test.log, "malloc failed")) << g.test.log;
  }
}

// The daemon did not hold the step open: the test ended when solve() returned.
void ended_at_once(const GradedSolution& g) { EXPECT_LT(g.test.wall_s, kTimeout); }

const std::vector<Case>& cases() {
  static const std::vector<Case> table = {
      {"read_sibling_workspace", {V::test_fail}},
      {"read_journal", {V::test_fail}},
      {"list_datasets", {V::test_fail}},
      {"read_home", {V::test_fail}},
      {"read_build_cache", {V::test_fail}},
      {"write_outside", {V::test_fail}},
      {"symlink_escape", {V::test_fail}},
      {"write_system", {V::test_fail}, test_log_has("Read-only file system")},
      {"read_shadow", {V::test_fail}},
      {"env_leak", {V::test_fail}},
      {"read_host_proc", {V::test_fail}, test_log_lacks("firecracker")},
      {"connect_loopback", {V::test_fail}, test_log_has("Connection refused")},
      {"dev_tcp_shell", {V::test_fail}},
      {"connect_outside", {V::test_fail}, test_log_has("Network is unreachable")},
      {"fork_bomb", {V::test_fail, V::crash, V::test_timeout}},
      {"fill_disk", {V::test_fail, V::crash}},
      {"fill_tmp", {V::test_fail, V::crash}},
      {"memory_hog", {V::test_fail}, memory_stopped},
      // Only a cgroup sees the sum of processes; RLIMIT_DATA, the fallback, is per process.
      {"memory_hog_children",
       {cgroup_place().has_memory() ? V::test_fail : V::pass},
       [](const GradedSolution& g) {
         if (cgroup_place().has_memory()) {
           EXPECT_TRUE(contains(g.detail, "more memory than its limit")) << g.detail;
         }
       }},
      {"exhaust_fds", {V::test_fail}, test_log_has("descriptors (limit 4096)")},
      {"flood_stdout", {V::pass}, log_capped},
      {"sleep_forever", {V::test_timeout}, killed_at_timeout},
      {"ignore_sigterm", {V::test_timeout}, killed_at_timeout},
      {"daemon", {V::pass}, ended_at_once},
      {"kill_judge", {V::pass, V::crash, V::test_fail}, test_log_has("judge=No such process")},
      {"ptrace_sibling", {V::test_fail}, test_log_has("sibling: Operation not permitted")},
      {"raise_limits", {V::test_fail}, test_log_has("NOFILE past 4096: Operation not permitted")},
      {"load_module", {V::test_fail}},
      {"mount_tmpfs", {V::test_fail}},
      {"new_namespace", {V::test_fail}},
      {"keyctl", {V::test_fail}},
      {"escape_cgroup", {V::test_fail}},
      {"reboot", {V::test_fail}},
      {"include_shadow", {V::build_error}, build_log_has("No such file")},
      {"include_shared", {V::build_error}, build_log_has("No such file")},
      {"include_sibling", {V::build_error}},
      // Issue 31: the judge's own inherited descriptors, the main guard's nonce, and judge code
      // inside the test program redirected by the solution's own definitions of libc's names.
      // Each forges "returned 0" and exits 0 if it finds what it looks for: a pass is a breach.
      {"inherited_fds", {V::test_fail}},
      {"inherited_fds_shell", {V::test_fail}},
      {"nonce_cmdline", {V::test_fail}, test_log_lacks("forged with")},
      {"nonce_environ", {V::test_fail}, test_log_lacks("forged with")},
      {"nonce_fds", {V::test_fail}, test_log_lacks("forged with")},
      {"nonce_memory", {V::test_fail}, test_log_lacks("forged with")},
      // The define_* probes are refused at build now (symbol_scan.h): the test program defines a
      // name the guard and the C library rely on. The guard's own stand against them, with the
      // scan out of the way, is main_return_test's ASolutionsOwnLibcNamesCannotForgeTheGuardsLine.
      {"define_getenv", {V::build_error}, refused_for_defining("getenv")},
      {"define_write", {V::build_error}, refused_for_defining("write")},
      {"define_snprintf", {V::build_error}, refused_for_defining("snprintf")},
      {"define_close", {V::build_error}, refused_for_defining("close")},
      {"define_getpid", {V::build_error}, refused_for_defining("getpid")},
      {"define_strtol", {V::build_error}, refused_for_defining("strtol")},
      {"define_fcntl", {V::build_error}, refused_for_defining("fcntl")},
  };
  return table;
}

// Calls the solution's solve() and passes when it returns 42.
Problem host_problem(const std::string& id) {
  Problem p;
  p.task_id = id;
  p.group = "hostile";
  p.host_only = true;
  p.build_command = "cc -O1 -o test.out solution.c test/main.c";
  p.test_command = "./test.out";
  p.test_files = {{"test/main.c",
                   "#include <stdio.h>\nint solve(void);\nint main(void) {\n  int r = solve();\n"
                   "  printf(\"solve() = %d\\n\", r);\n  return r == 42 ? 0 : 1;\n}\n"}};
  p.timeout_seconds = kTimeout;
  return p;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size())
    s.replace(pos, from.size(), to);
  return s;
}

// Processes a step left behind: named like the probes' children, or still inside a workspace.
std::vector<std::string> leftovers(const fs::path& work_root) {
  std::vector<std::string> out;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string pid = entry.path().filename().string();
    if (!std::all_of(pid.begin(), pid.end(), ::isdigit)) continue;
    std::string comm = testing::read_text(entry.path() / "comm");
    std::error_code ec;
    fs::path cwd = fs::read_symlink(entry.path() / "cwd", ec);
    if (contains(comm, "kjhostile") || (!ec && contains(cwd.string(), work_root.string())))
      out.push_back(pid + " " + comm + " in " + cwd.string());
  }
  return out;
}

class HostileCorpus : public ::testing::Test {
 protected:
  void SetUp() override {
    SandboxPolicy probe;
    probe.workspace = dir_.path();
    std::string why;
    if (!sandbox_available(probe, &why)) GTEST_SKIP() << "bubblewrap unusable here: " << why;

    opt_.sandbox = true;
    opt_.build_workers = 2;
    opt_.host_test_slots = 2;
    opt_.work_root = dir_ / "work";
    opt_.cache_dir = dir_ / "cache";
    opt_.memory_limit_bytes = 256ull << 20;
    machine_.nvcc_path = "/usr/bin/true";
    machine_.cuda_version = "13.0";
    machine_.nvcc_version_line = "Cuda compilation tools, release 13.0";
    machine_.cpu_count = 2;

    // What the probes go after: another workspace beside the work root, the run's journal, a
    // secret in the judge's environment, and a host service on loopback.
    testing::write_text(dir_ / "sibling-ws/secret.txt", kSiblingSecret);
    testing::write_text(dir_ / "sibling-ws/secret.h", "#define SECRET_ANSWER 42\n");
    testing::write_text(dir_ / "results.jsonl",
                        std::string("{\"log\": \"") + kJournalSecret + "\"}\n");
    fs::create_directories(opt_.cache_dir / "builds");
    setenv("KJ_SECRET", kEnvSecret, 1);
    // dup2 leaves the copies inheritable, as a parent's `77>>file 78<file` would.
    testing::write_text(dir_ / "kjhostile-fd-host.txt", kFdHostText);
    testing::write_text(dir_ / "kjhostile-fd-secret.txt", kFdSecret);
    const int host =
        open((dir_ / "kjhostile-fd-host.txt").c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    const int secret = open((dir_ / "kjhostile-fd-secret.txt").c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(host, 0);
    ASSERT_GE(secret, 0);
    ASSERT_EQ(dup2(host, kHostFd), kHostFd);
    ASSERT_EQ(dup2(secret, kSecretFd), kSecretFd);
    close(host);
    close(secret);
    listener_ = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    ASSERT_GE(listener_, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    ASSERT_EQ(listen(listener_, 16), 0);
    socklen_t len = sizeof addr;
    ASSERT_EQ(getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len), 0);
    port_ = ntohs(addr.sin_port);
  }

  void TearDown() override {
    unsetenv("KJ_SECRET");
    close(kHostFd);
    close(kSecretFd);
    if (listener_ >= 0) close(listener_);
  }

  Solution load(const std::string& name) {
    Solution s;
    s.task_id = "hostile/" + name;
    for (const auto& entry : fs::directory_iterator(kCorpus / name)) {
      if (entry.path().extension() != ".c") continue;
      std::string text = testing::read_text(entry.path());
      for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
               {"@DIR@", dir_.path().string()},
               {"@WORK@", opt_.work_root.string()},
               {"@SIBLING@", (dir_ / "sibling-ws").string()},
               {"@CACHE@", opt_.cache_dir.string()},
               {"KJ_PORT", std::to_string(port_)},
               {"KJ_JUDGE_PID", std::to_string(getpid())},
               {"@PID@", std::to_string(getpid())}})
        text = replace_all(text, from, to);
      s.files.push_back({entry.path().filename().string(), text});
    }
    return s;
  }

  std::map<std::string, GradedSolution> grade(const std::vector<std::string>& names) {
    std::vector<Problem> problems;
    problems.reserve(names.size());  // jobs point into it
    std::vector<EvalJob> jobs;
    for (const auto& n : names) {
      problems.push_back(host_problem("hostile/" + n));
      jobs.push_back({&problems.back(), load(n)});
    }
    std::map<std::string, GradedSolution> out;
    std::mutex mu;
    Evaluator ev(opt_, machine_);
    ev.run(std::move(jobs), [&](const GradedSolution& g) {
      std::lock_guard<std::mutex> lock(mu);
      out[g.task_id.substr(g.task_id.find('/') + 1)] = g;
    });
    return out;
  }

  int accepted_connections() {
    int n = 0;
    for (int fd; (fd = accept(listener_, nullptr, nullptr)) >= 0; ++n) close(fd);
    return n;
  }

  testing::TempDir dir_;
  EvalOptions opt_;
  MachineInfo machine_;
  int listener_ = -1;
  int port_ = 0;
};

TEST_F(HostileCorpus, EveryAttackIsContained) {
  std::vector<std::string> names;
  for (const auto& c : cases()) names.push_back(c.name);
  // Every directory of the corpus is in the table, so a new case cannot be silently skipped.
  std::size_t dirs = 0;
  for (const auto& e : fs::directory_iterator(kCorpus)) dirs += e.is_directory();
  EXPECT_EQ(dirs, names.size());

  auto t0 = std::chrono::steady_clock::now();
  auto r = grade(names);
  std::printf("[ hostile  ] %zu solutions graded in %.1f s\n", names.size(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  ASSERT_EQ(r.size(), names.size());

  for (const auto& c : cases()) {
    SCOPED_TRACE(c.name);
    const GradedSolution& g = r.at(c.name);
    // What each probe saw, for whoever reads a failure (or audits a pass) of this test.
    const std::string& log = g.build.log.empty() || g.test.ran ? g.test.log : g.build.log;
    std::printf("[ hostile  ] %-24s %-13s %s\n", c.name.c_str(),
                std::string(to_string(g.verdict)).c_str(),
                log.substr(0, std::min<std::size_t>(log.find('\n'), 100)).c_str());
    EXPECT_NE(std::find(c.verdicts.begin(), c.verdicts.end(), g.verdict), c.verdicts.end())
        << "got " << g.verdict << " (" << g.detail << ")\nbuild log:\n"
        << g.build.log.substr(0, 2000) << "\ntest log:\n"
        << g.test.log.substr(0, 2000);
    // No secret reaches any log, whatever the verdict.
    for (const char* secret : {kSiblingSecret, kJournalSecret, kEnvSecret, kFdSecret}) {
      EXPECT_FALSE(contains(g.build.log, secret)) << secret;
      EXPECT_FALSE(contains(g.test.log, secret)) << secret;
    }
    if (c.check) c.check(g);
  }

  // Host-side effects: nothing was written outside the workspaces, nothing connected to the
  // host's loopback, no step is still running.
  const std::string pid = std::to_string(getpid());
  for (const fs::path& p :
       {dir_ / "marker-write-outside", dir_ / "work/marker-write-outside", dir_ / "marker-symlink",
        dir_ / "sibling-ws/planted.txt", fs::path("/tmp/kjhostile-write-outside-" + pid),
        fs::path("/tmp/kjhostile-symlink-" + pid), fs::path("/tmp/kjhostile-fill"),
        fs::path("/usr/kjhostile-" + pid), fs::path("/usr/lib/kjhostile-" + pid),
        fs::path("/etc/kjhostile-" + pid), fs::path("/kjhostile-" + pid)}) {
    EXPECT_FALSE(fs::exists(p)) << p << " was written by a sandboxed step";
  }
  EXPECT_EQ(testing::read_text(dir_ / "sibling-ws/secret.txt"), kSiblingSecret);
  EXPECT_EQ(testing::read_text(dir_ / "kjhostile-fd-host.txt"), kFdHostText)
      << "a step wrote through a descriptor the judge inherited";
  EXPECT_FALSE(contains(testing::read_text("/etc/passwd"), "kjhostile"));
  EXPECT_EQ(accepted_connections(), 0) << "a step reached the host's 127.0.0.1:" << port_;
  std::vector<std::string> left = leftovers(opt_.work_root);
  EXPECT_TRUE(left.empty()) << left.size() << " processes outlived their step, first: "
                            << (left.empty() ? "" : left.front());
  // Each step's cgroup is gone too (a group that cannot be removed still holds a process).
  for (const fs::path& parent : {cgroup_place().pids_parent, cgroup_place().memory_parent}) {
    std::error_code ec;
    if (parent.empty()) continue;
    for (const auto& e : fs::directory_iterator(parent, ec))
      EXPECT_NE(e.path().filename().string().rfind(pid + ".", 0), 0u) << e.path() << " left behind";
  }

  // The judge is alive and grades the next solution normally.
  Solution ok;
  ok.task_id = "hostile/after";
  ok.files = {{"solution.c", "int solve(void) { return 42; }\n"}};
  Problem p = host_problem("hostile/after");
  std::map<std::string, GradedSolution> after;
  Evaluator ev(opt_, machine_);
  ev.run({{&p, ok}}, [&](const GradedSolution& g) { after[g.task_id] = g; });
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after["hostile/after"].verdict, V::pass) << after["hostile/after"].detail;
  EXPECT_TRUE(leftovers(opt_.work_root).empty());
}

}  // namespace
}  // namespace kjudge
