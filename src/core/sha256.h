#pragma once
// SHA-256 hex digests, e.g. for build-cache keys. OpenSSL stays out of this header.
#include <filesystem>
#include <string>
#include <string_view>

namespace kjudge {

// Lower-case hex digest (64 characters).
std::string sha256_hex(std::string_view data);

// Digest of a file's bytes; throws std::runtime_error when it cannot be read.
std::string sha256_file_hex(const std::filesystem::path& path);

// Incremental hashing: feed pieces with update(), read the digest with hex(). hex() does not end
// the computation, so more update() calls may follow (the digest then covers everything fed).
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(Sha256&& other) noexcept;
  Sha256& operator=(Sha256&& other) noexcept;
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  Sha256& update(std::string_view bytes);
  std::string hex() const;

 private:
  struct Ctx;
  Ctx* ctx_;
};

}  // namespace kjudge
