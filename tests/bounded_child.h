#pragma once
// Runs a reader in a forked child under an address-space limit and an alarm, so that a reader
// that hangs (a FIFO) or balloons (an alias bomb) fails its test with a clear verdict instead
// of stalling the suite or taking the machine's memory.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <new>
#include <string>

#include "core/input_error.h"

namespace kjudge::testing {

struct BoundedResult {
  enum class Outcome { returned, input_error, bad_alloc, other_exception, killed } outcome;
  std::string message;  // the InputError's what(), or how the child ended
  double seconds = 0;
};

template <typename F>
BoundedResult run_bounded(F&& f, std::size_t address_space_bytes, unsigned seconds) {
  int fds[2];
  if (pipe(fds) != 0) return {BoundedResult::Outcome::killed, "pipe failed"};
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const rlimit as{address_space_bytes, address_space_bytes};
    setrlimit(RLIMIT_AS, &as);
    alarm(seconds);
    int code = 0;
    std::string msg;
    try {
      f();
    } catch (const InputError& e) {
      code = 3;
      msg = e.what();
    } catch (const std::bad_alloc&) {
      code = 4;
    } catch (const std::exception& e) {
      code = 5;
      msg = e.what();
    }
    if (write(fds[1], msg.data(), msg.size()) < 0) code = 6;
    _exit(code);
  }
  close(fds[1]);
  std::string msg;
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) msg.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  BoundedResult r{BoundedResult::Outcome::killed, msg};
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (WIFSIGNALED(status)) {
    r.message = std::string("killed by signal ") + strsignal(WTERMSIG(status));
  } else if (WIFEXITED(status)) {
    switch (WEXITSTATUS(status)) {
      case 0:
        r.outcome = BoundedResult::Outcome::returned;
        break;
      case 3:
        r.outcome = BoundedResult::Outcome::input_error;
        break;
      case 4:
        r.outcome = BoundedResult::Outcome::bad_alloc;
        r.message = "std::bad_alloc";
        break;
      default:
        r.outcome = BoundedResult::Outcome::other_exception;
    }
  }
  return r;
}

}  // namespace kjudge::testing
