#pragma once
// tests/fake_llm_server.py as a child process on the port it picked (it prints `PORT <n>` first),
// killed at scope exit, for the tests that point the real kjudge binary at it.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

namespace kjudge::testing {

class FakeLlmServer {
 public:
  FakeLlmServer() = default;
  ~FakeLlmServer() { stop(); }
  FakeLlmServer(const FakeLlmServer&) = delete;
  FakeLlmServer& operator=(const FakeLlmServer&) = delete;

  // `args`: the script's options as shell words, so a directive can be quoted
  // (`--default 'stall 0.5'`). A fatal failure of the calling test when no port comes back:
  // wrap the call in ASSERT_NO_FATAL_FAILURE where the test must not go on without it.
  void start(const std::string& args) {
    stop();
    const std::string cmd =
        "exec python3 " + std::string(KJUDGE_SOURCE_DIR) + "/tests/fake_llm_server.py " + args;
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    pid_ = fork();
    if (pid_ == 0) {
      dup2(fds[1], STDOUT_FILENO);
      execl("/bin/sh", "sh", "-c", cmd.c_str(), nullptr);
      _exit(127);
    }
    close(fds[1]);
    FILE* f = fdopen(fds[0], "r");
    char line[128] = {};
    const bool got = fgets(line, sizeof line, f) != nullptr;
    fclose(f);
    ASSERT_TRUE(got) << "the fake LLM server printed nothing";
    ASSERT_EQ(sscanf(line, "PORT %d", &port_), 1) << line;
  }

  void stop() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
  }

  int port() const { return port_; }
  // The --base-url kjudge takes for an OpenAI-compatible server.
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace kjudge::testing
