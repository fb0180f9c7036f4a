#pragma once
// A private channel from a timed process back to the judge: a memfd (no path anyone else can
// open) that the child inherits by number, and a random nonce every record must carry. The
// CUPTI profiler (perf/profiler) and the task harness (harness/) both report this way. The memfd
// allows seals: the task harness seals its report once written.
#include <string>

namespace kjudge {

// 32 hex characters from OpenSSL's generator.
std::string random_nonce();

class ResultChannel {
 public:
  // Throws std::runtime_error when no memfd can be made.
  explicit ResultChannel(const char* name);
  ~ResultChannel();
  ResultChannel(const ResultChannel&) = delete;
  ResultChannel& operator=(const ResultChannel&) = delete;
  // Movable, so that what owns one (run/main_return.h's MainGuard) can be handed back.
  ResultChannel(ResultChannel&& other) noexcept;
  ResultChannel& operator=(ResultChannel&& other) noexcept;

  int fd() const { return fd_; }
  const std::string& nonce() const { return nonce_; }
  // Puts the nonce in the file itself (for a reader that takes it from there and empties it:
  // the task harness), instead of an environment variable.
  void write_nonce();
  // Everything in the file now.
  std::string read_all() const;

 private:
  int fd_ = -1;
  std::string nonce_;
};

}  // namespace kjudge
