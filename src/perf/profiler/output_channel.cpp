#include "output_channel.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <charconv>

#include "run/high_fd.h"

namespace kjudge::profiler {

namespace {

// The value, with its bytes in the process's environment block overwritten: /proc/self/environ
// reads that block, not what unsetenv leaves in `environ`.
std::optional<std::string> take_variable(const char* name) {
  char* value = getenv(name);
  if (value == nullptr) return std::nullopt;
  std::string copy = value;
  memset(value, 0, copy.size());
  unsetenv(name);
  return copy;
}

// Hex digits in practice; anything that would break the line format is dropped.
std::string clean_nonce(const std::string& nonce) {
  std::string out;
  for (char c : nonce) {
    if (c > ' ' && c < 0x7F) out += c;
  }
  return out.empty() ? "-" : out;
}

}  // namespace

std::optional<OutputChannel> take_output_channel() {
  std::optional<std::string> fd_text = take_variable("KJUDGE_PROFILE_FD");
  std::optional<std::string> file = take_variable("KJUDGE_PROFILE_FILE");
  std::optional<std::string> nonce = take_variable("KJUDGE_PROFILE_NONCE");
  std::optional<std::string> early = take_variable("KJUDGE_PROFILE_EARLY_HEADER");
  int fd = -1;
  if (fd_text) {
    int parsed = -1;
    auto [end, error] = std::from_chars(fd_text->data(), fd_text->data() + fd_text->size(), parsed);
    if (error == std::errc() && end == fd_text->data() + fd_text->size() && parsed >= 0 &&
        fcntl(parsed, F_GETFD) >= 0) {
      fd = parsed;
    }
  } else if (file && !file->empty()) {
    fd = open(file->c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  }
  if (fd < 0) return std::nullopt;
  return OutputChannel{move_fd_high(fd), clean_nonce(nonce.value_or("")), early == "1"};
}

bool write_all(int fd, std::string_view data) {
  // A judge that stopped reading must not turn the program's exit into a death by SIGPIPE.
  sigset_t pipe_only, previous;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_only, &previous);
  bool ok = true;
  while (!data.empty()) {
    ssize_t n = write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = false;
      break;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  if (!ok && errno == EPIPE) {
    timespec zero{};
    sigtimedwait(&pipe_only, nullptr, &zero);  // discard the SIGPIPE this thread now has pending
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return ok;
}

}  // namespace kjudge::profiler
