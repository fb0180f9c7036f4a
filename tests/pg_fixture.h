#pragma once
// A real PostgreSQL server for tests: Debian's postgresql binaries, a fresh cluster in a
// temporary directory, listening on a free loopback port; stopped and removed at scope exit.
// As root (CI), the cluster belongs to the `postgres` user, since PostgreSQL refuses root.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "test_util.h"

namespace kjudge::testing {

class PostgresServer {
 public:
  PostgresServer() {
    namespace fs = std::filesystem;
    std::error_code ec;
    for (const auto& v : fs::directory_iterator("/usr/lib/postgresql", ec))
      if (fs::exists(v.path() / "bin/initdb")) bin_ = v.path() / "bin";
    if (bin_.empty()) {
      why_ = "PostgreSQL is not installed (scripts/install-deps installs it)";
      return;
    }
    port_ = free_port();
    const std::string dir = dir_.path().string();
    std::string as = "";
    if (geteuid() == 0) {
      as = "runuser -u postgres -- ";
      run_capture("chown -R postgres " + dir);
    }
    auto r =
        run_capture(as + (bin_ / "initdb").string() + " -D " + dir + "/data -U kjudge -A trust");
    if (r.rc != 0) {
      why_ = "initdb failed: " + r.out;
      return;
    }
    r = run_capture(as + (bin_ / "pg_ctl").string() + " -D " + dir + "/data -l " + dir +
                    "/log -w -o \"-p " + std::to_string(port_) + " -k " + dir +
                    " -c listen_addresses=127.0.0.1 -c fsync=off\" start");
    if (r.rc != 0) {
      why_ = "pg_ctl start failed: " + r.out;
      return;
    }
    as_ = as;
    started_ = true;
  }
  ~PostgresServer() {
    if (started_)
      run_capture(as_ + (bin_ / "pg_ctl").string() + " -D " + dir_.path().string() +
                  "/data -m immediate stop");
  }
  bool ok() const { return started_; }
  const std::string& why() const { return why_; }
  // A fresh database per call, so tests do not see each other's rows.
  std::string new_database() {
    const std::string name = "t" + std::to_string(++databases_);
    run_capture(as_ + (bin_ / "createdb").string() + " -h 127.0.0.1 -p " + std::to_string(port_) +
                " -U kjudge " + name);
    return "postgresql://kjudge@127.0.0.1:" + std::to_string(port_) + "/" + name;
  }

 private:
  static int free_port() {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t n = sizeof a;
    getsockname(s, reinterpret_cast<sockaddr*>(&a), &n);
    close(s);
    return ntohs(a.sin_port);
  }
  TempDir dir_;
  std::filesystem::path bin_;
  std::string as_, why_;
  int port_ = 0, databases_ = 0;
  bool started_ = false;
};

}  // namespace kjudge::testing
