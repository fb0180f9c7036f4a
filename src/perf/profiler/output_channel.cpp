#include "output_channel.h"

#include "run/preload_channel.h"

namespace kjudge::profiler {

namespace raw = kjudge::raw;

bool take_output_channel(char** envp, OutputChannel& out) {
  char fd_text[16], file[4096], early[8];
  const bool named_fd = raw::take_env(envp, "KJUDGE_PROFILE_FD", fd_text, sizeof fd_text);
  const bool named_file = raw::take_env(envp, "KJUDGE_PROFILE_FILE", file, sizeof file);
  const bool named_early = raw::take_env(envp, "KJUDGE_PROFILE_EARLY_HEADER", early, sizeof early);
  int fd = -1;
  if (named_fd) {
    const long n = raw::parse_decimal(fd_text);
    if (n < 0 || !raw::is_open(static_cast<int>(n))) return false;
    fd = static_cast<int>(n);
    // A descriptor without a nonce (a pipe, by hand) writes a record the judge refuses.
    if (raw::take_nonce(fd, out.nonce, sizeof out.nonce) == 0) {
      out.nonce[0] = '-';
      out.nonce[1] = '\0';
    }
  } else if (named_file && file[0] != '\0') {
    const long opened = raw::openat(AT_FDCWD, file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (opened < 0) return false;
    fd = static_cast<int>(opened);
  } else {
    return false;
  }
  out.fd = raw::move_fd_high(fd);
  out.stream = raw::lseek(out.fd, 0, SEEK_CUR) == -ESPIPE;
  out.early_header = named_early && early[0] == '1' && early[1] == '\0';
  return true;
}

void write_start_line(const OutputChannel& channel) {
  constexpr std::size_t n = sizeof kStartLine - 1;
  if (channel.stream) {
    raw::write_stream(channel.fd, kStartLine, n);
  } else {
    raw::pwrite(channel.fd, kStartLine, n, 0);
  }
}

void finish_output(const OutputChannel& channel, const char* record, std::size_t n) {
  if (channel.stream && channel.early_header) {
    // The start line went first and stays (a pipe has no going back): the record's own header
    // line, with the same "-" for a nonce, is left out.
    std::size_t skip = 0;
    while (skip < n && record[skip] != '\n') ++skip;
    skip = skip < n ? skip + 1 : n;
    record += skip;
    n -= skip;
  }
  const raw::Finish done = raw::finish_report(channel.fd, record, n);
  raw::close(channel.fd);
  if (done == raw::Finish::kTampered) {
    static const char msg[] =
        "libkjudge_profiler: something else wrote to or sealed the profiler's channel\n";
    raw::die_tampered(msg, sizeof msg - 1);
  }
}

}  // namespace kjudge::profiler
