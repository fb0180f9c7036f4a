#pragma once
// A real single-node Slurm cluster for tests (tests/slurm/start-cluster.sh on free loopback
// ports in its own directory, stopped by stop-cluster.sh when the object goes). why() is set
// when the test must skip (Slurm not installed, not root); start_error() when Slurm is
// installed but the cluster did not start, which is a failure: CI must not go green silently.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "slurm/submit.h"

namespace kjudge::slurm::test {

namespace fs = std::filesystem;

struct Cmd {
  int rc;
  std::string out;
};

inline Cmd sh(const std::string& command) {
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  std::string out;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), out};
}

inline std::string joined(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + shell_quote(a);
  return s;
}

// Two daemons bind these; a port the kernel just handed out is free for a moment after.
inline int free_port() {
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
  // "SLURM_CONF=… ": what a shell command needs in front to reach this cluster.
  const std::string& env() const { return env_; }
  Cmd run(const std::vector<std::string>& argv) const { return sh(env_ + joined(argv)); }

 private:
  std::string why_, start_error_, env_, stop_;
  fs::path dir_;
};

}  // namespace kjudge::slurm::test
