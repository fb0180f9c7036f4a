// End-to-end check of the Slurm pieces against a real cluster: the single-node cluster of
// tests/slurm/start-cluster.sh, started here on free loopback ports and stopped at the end.
// Skips (does not fail) where Slurm is not installed or the test is not root, so developer
// machines without Slurm stay green; CI installs it (scripts/install-deps) and runs as root.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "run/slurm_submit.h"

namespace kjudge::slurm {
namespace {

namespace fs = std::filesystem;

struct Cmd {
  int rc;
  std::string out;
};

Cmd sh(const std::string& command) {
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  std::string out;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), out};
}

std::string joined(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + shell_quote(a);
  return s;
}

// Two daemons bind these; a port the kernel just handed out is free for a moment after.
int free_port() {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  close(s);
  return ntohs(a.sin_port);
}

class SlurmCluster {
 public:
  SlurmCluster() {
    const std::string fixture = std::string(KJUDGE_SOURCE_DIR) + "/tests/slurm";
    if (sh("command -v slurmctld && command -v slurmd && command -v munged && command -v sbatch")
            .rc != 0) {
      why_ = "Slurm is not installed (scripts/install-deps installs slurmctld slurmd munge)";
      return;
    }
    if (geteuid() != 0) {
      why_ = "the Slurm fixture runs its daemons as root";
      return;
    }
    char tmpl[] = "/tmp/kjudge-slurm-XXXXXX";
    if (!mkdtemp(tmpl)) {
      why_ = "mkdtemp failed";
      return;
    }
    dir_ = tmpl;
    int ctld = free_port(), d = free_port();
    while (d == ctld) d = free_port();
    auto r =
        sh("KJ_SLURM_CTLD_PORT=" + std::to_string(ctld) + " KJ_SLURM_D_PORT=" + std::to_string(d) +
           " " + fixture + "/start-cluster.sh " + dir_.string());
    stop_ = fixture + "/stop-cluster.sh " + dir_.string();
    if (r.rc != 0) {
      // Installed but not startable is a failure, not a skip: CI must not go green silently.
      start_error_ = r.out;
      return;
    }
    env_ = "SLURM_CONF=" + (dir_ / "slurm.conf").string() + " ";
  }
  ~SlurmCluster() {
    if (!stop_.empty()) sh(stop_);
  }
  const std::string& why() const { return why_; }
  const std::string& start_error() const { return start_error_; }
  const fs::path& dir() const { return dir_; }
  Cmd run(const std::vector<std::string>& argv) const { return sh(env_ + joined(argv)); }

 private:
  std::string why_, start_error_, env_, stop_;
  fs::path dir_;
};

TEST(SlurmCluster, ArrayTasksRunAndReportTheirStates) {
  SlurmCluster c;
  if (!c.why().empty()) GTEST_SKIP() << c.why();
  ASSERT_TRUE(c.start_error().empty()) << c.start_error();

  const fs::path run_dir = c.dir() / "run";
  fs::create_directories(run_dir / "slurm");
  // Shards 0-2 leave a marker naming their array task; shard 3 fails on purpose, to see a
  // job failure told apart from success through the same parser.
  std::vector<std::vector<std::string>> commands;
  for (int i = 0; i < 3; ++i)
    commands.push_back({"bash", "-c", "echo \"$SLURM_ARRAY_TASK_ID\" > \"$1\"", "marker",
                        (run_dir / ("done " + std::to_string(i))).string()});
  commands.push_back({"bash", "-c", "exit 3"});
  const fs::path script = run_dir / "slurm" / "array.sh";
  std::ofstream(script) << batch_script(commands);

  SubmitOptions o;
  o.run_dir = run_dir;
  o.max_parallel = 2;
  o.extra_args = {"--time=5"};
  auto sub = c.run(sbatch_argv(o, {0, 1, 2, 3}, script));
  ASSERT_EQ(sub.rc, 0) << sub.out;
  const std::string job = parse_sbatch_job_id(sub.out);

  std::map<int, ArrayTask> tasks;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  for (;;) {
    tasks = parse_scontrol(c.run(scontrol_argv(job)).out, job);
    bool done = tasks.size() == 4;
    for (const auto& [i, t] : tasks) done = done && is_terminal(t.state);
    if (done) break;
    ASSERT_LT(std::chrono::steady_clock::now(), deadline)
        << "array " << job << " not finished; squeue says:\n"
        << c.run(squeue_argv(job)).out;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(tasks.at(i).state, TaskState::Completed) << i << " " << tasks.at(i).raw_state;
    std::ifstream marker(run_dir / ("done " + std::to_string(i)));
    std::string got;
    marker >> got;
    EXPECT_EQ(got, std::to_string(i));
    // The log lands where task_log_pattern says, %a and %A filled in.
    EXPECT_TRUE(
        fs::exists(run_dir / "slurm" / ("shard-" + std::to_string(i) + ".job-" + job + ".out")));
  }
  EXPECT_EQ(tasks.at(3).state, TaskState::Failed);
  EXPECT_EQ(tasks.at(3).exit_code, "3:0");
  EXPECT_EQ(classify(tasks.at(3).state), Failure::Job);

  // squeue -t all tells the same story while Slurm remembers the job (MinJobAge=600).
  auto q = parse_squeue(c.run(squeue_argv(job)).out, job);
  ASSERT_EQ(q.size(), 4u);
  for (const auto& [i, t] : q) EXPECT_EQ(t.state, tasks.at(i).state) << i;
}

}  // namespace
}  // namespace kjudge::slurm
