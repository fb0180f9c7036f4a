#include "core/sha256.h"

#include <openssl/evp.h>

#include <fstream>
#include <stdexcept>
#include <utility>

namespace kjudge {
namespace {

std::string to_hex(const unsigned char* digest, unsigned int size) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * size);
  for (unsigned int i = 0; i < size; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 0xf];
  }
  return out;
}

[[noreturn]] void openssl_failed(const char* what) {
  throw std::runtime_error(std::string("OpenSSL ") + what + " failed");
}

}  // namespace

// Wrapping the context in a struct lets the header forward-declare it without OpenSSL types.
struct Sha256::Ctx {
  EVP_MD_CTX* md = nullptr;
};

Sha256::Sha256() : ctx_(new Ctx) {
  ctx_->md = EVP_MD_CTX_new();
  if (ctx_->md == nullptr || EVP_DigestInit_ex(ctx_->md, EVP_sha256(), nullptr) != 1) {
    EVP_MD_CTX_free(ctx_->md);
    delete ctx_;
    openssl_failed("EVP_DigestInit_ex(sha256)");
  }
}

Sha256::~Sha256() {
  if (ctx_ != nullptr) {
    EVP_MD_CTX_free(ctx_->md);
    delete ctx_;
  }
}

Sha256::Sha256(Sha256&& other) noexcept : ctx_(std::exchange(other.ctx_, nullptr)) {}

Sha256& Sha256::operator=(Sha256&& other) noexcept {
  std::swap(ctx_, other.ctx_);
  return *this;
}

Sha256& Sha256::update(std::string_view bytes) {
  if (ctx_ == nullptr) throw std::logic_error("Sha256 used after move");
  if (EVP_DigestUpdate(ctx_->md, bytes.data(), bytes.size()) != 1) {
    openssl_failed("EVP_DigestUpdate");
  }
  return *this;
}

std::string Sha256::hex() const {
  if (ctx_ == nullptr) throw std::logic_error("Sha256 used after move");
  // Finalising a copy keeps this context open for further update() calls.
  EVP_MD_CTX* copy = EVP_MD_CTX_new();
  if (copy == nullptr || EVP_MD_CTX_copy_ex(copy, ctx_->md) != 1) {
    EVP_MD_CTX_free(copy);
    openssl_failed("EVP_MD_CTX_copy_ex");
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  const int rc = EVP_DigestFinal_ex(copy, digest, &size);
  EVP_MD_CTX_free(copy);
  if (rc != 1) openssl_failed("EVP_DigestFinal_ex");
  return to_hex(digest, size);
}

std::string sha256_hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(data.data(), data.size(), digest, &size, EVP_sha256(), nullptr) != 1) {
    openssl_failed("EVP_Digest(sha256)");
  }
  return to_hex(digest, size);
}

std::string sha256_file_hex(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path.string() + " for hashing");
  Sha256 hash;
  char buffer[1 << 16];
  while (in) {
    in.read(buffer, sizeof buffer);
    if (in.gcount() > 0) hash.update(std::string_view(buffer, static_cast<size_t>(in.gcount())));
  }
  if (in.bad()) throw std::runtime_error("error reading " + path.string() + " for hashing");
  return hash.hex();
}

}  // namespace kjudge
