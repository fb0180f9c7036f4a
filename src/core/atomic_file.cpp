#include "core/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace kjudge {

namespace fs = std::filesystem;

namespace {

std::string unique_suffix() {
  static std::atomic<unsigned long> calls{0};
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  return ".tmp." + std::string(host) + "." + std::to_string(getpid()) + "." +
         std::to_string(calls.fetch_add(1));
}

[[noreturn]] void fail(const fs::path& target, const std::string& what, int error) {
  throw std::runtime_error("cannot write " + target.string() + ": " + what + ": " +
                           std::strerror(error));
}

}  // namespace

AtomicFile::AtomicFile(fs::path target) : target_(std::move(target)) {
  temp_ = target_;
  temp_ += unique_suffix();
}

AtomicFile::~AtomicFile() {
  if (!committed_) ::unlink(temp_.c_str());
}

void AtomicFile::write(std::string_view text) {
  const int fd = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) fail(target_, "open " + temp_.string(), errno);
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int e = n < 0 ? errno : EIO;
      ::close(fd);
      fail(target_, "write", e);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) fail(target_, "close", errno);
}

void AtomicFile::commit() {
  // Flushed before the rename: after a crash the target holds all of one version, not a
  // renamed empty file.
  const int fd = ::open(temp_.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) fail(target_, "open " + temp_.string(), errno);
  const bool synced = ::fsync(fd) == 0;
  const int sync_error = errno;
  ::close(fd);
  if (!synced) fail(target_, "fsync", sync_error);
  if (::rename(temp_.c_str(), target_.c_str()) != 0) fail(target_, "rename", errno);
  committed_ = true;
}

void write_file_atomically(const fs::path& path, std::string_view text) {
  AtomicFile f(path);
  f.write(text);
  f.commit();
}

void write_json_atomically(const fs::path& path, const nlohmann::json& j) {
  write_file_atomically(path,
                        j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

void write_json_atomically(const fs::path& path, const nlohmann::ordered_json& j) {
  write_file_atomically(
      path, j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n");
}

}  // namespace kjudge
