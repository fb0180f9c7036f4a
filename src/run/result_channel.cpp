#include "run/result_channel.h"

#include <openssl/rand.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <utility>

namespace kjudge {

std::string random_nonce() {
  unsigned char bytes[16];
  if (RAND_bytes(bytes, sizeof bytes) != 1) {
    // Without OpenSSL's generator the nonce still differs per run and process.
    auto t = std::chrono::steady_clock::now().time_since_epoch().count();
    for (std::size_t i = 0; i < sizeof bytes; ++i)
      bytes[i] = static_cast<unsigned char>((t >> (8 * (i % 8))) ^ (getpid() >> (i % 4)));
  }
  static const char* hex = "0123456789abcdef";
  std::string s;
  for (unsigned char b : bytes) {
    s += hex[b >> 4];
    s += hex[b & 15];
  }
  return s;
}

ResultChannel::ResultChannel(const char* name) : nonce_(random_nonce()) {
  // Sealable: the task harness seals its report once written (F_SEAL_WRITE …), so that nothing
  // the solution runs afterwards can change it.
  fd_ = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd_ < 0) throw std::runtime_error("judge: cannot create a memfd for the result channel");
}

ResultChannel::~ResultChannel() {
  if (fd_ >= 0) close(fd_);
}

ResultChannel::ResultChannel(ResultChannel&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), nonce_(std::move(other.nonce_)) {}

ResultChannel& ResultChannel::operator=(ResultChannel&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    nonce_ = std::move(other.nonce_);
  }
  return *this;
}

void ResultChannel::write_nonce() {
  const std::string line = nonce_ + "\n";
  if (pwrite(fd_, line.data(), line.size(), 0) != static_cast<ssize_t>(line.size()))
    throw std::runtime_error("judge: cannot write the result channel's nonce");
}

std::string ResultChannel::read_all() const {
  struct stat st {};
  if (fstat(fd_, &st) != 0 || st.st_size <= 0) return "";
  std::string out(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  while (got < out.size()) {
    ssize_t n = pread(fd_, out.data() + got, out.size() - got, static_cast<off_t>(got));
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  out.resize(got);
  return out;
}

}  // namespace kjudge
