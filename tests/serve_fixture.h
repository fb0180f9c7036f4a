#pragma once
// `kjudge serve` on SQLite in a temporary folder with the example pack and tasks, and users
// made with `kjudge users add`: the fixture of the hostile-request and load tests.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "serve_process.h"
#include "test_util.h"

namespace kjudge::testing {

class ServeFixture : public ::testing::Test {
 protected:
  TempDir dir;
  std::string alice, bob, admin;
  std::unique_ptr<ServeProcess> server;

  void SetUp() override {
    alice = token("alice", false);
    bob = token("bob", false);
    admin = token("root", true);
  }
  // --no-judge by default: submissions stay queued, so a long poll on one waits its whole time.
  int serve(std::vector<std::string> extra = {"--no-judge"}) {
    const std::filesystem::path ex = std::filesystem::path(KJUDGE_SOURCE_DIR) / "examples";
    std::vector<std::string> a = {
        "--db",    (dir / "board.db").string(), "--pack",      "example=" + (ex / "pack").string(),
        "--tasks", (ex / "tasks").string(),     "--cache-dir", (dir / "cache").string()};
    a.insert(a.end(), extra.begin(), extra.end());
    server = std::make_unique<ServeProcess>(KJUDGE_BINARY, a);
    return server->port();
  }
  std::string token(const std::string& name, bool is_admin) {
    auto r = run_capture(std::string(KJUDGE_BINARY) + " users add " + name +
                         (is_admin ? " --admin" : "") + " --db " + (dir / "board.db").string());
    EXPECT_EQ(r.rc, 0) << r.out;
    return r.out.substr(0, r.out.find('\n'));
  }
};

}  // namespace kjudge::testing
