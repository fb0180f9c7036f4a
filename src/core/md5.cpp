#include "core/md5.h"

#include <openssl/evp.h>

#include <stdexcept>

namespace kjudge {

std::string md5_hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  // EVP_Digest rather than MD5(): the low-level MD5 API is deprecated in OpenSSL 3.
  if (EVP_Digest(data.data(), data.size(), digest, &size, EVP_md5(), nullptr) != 1) {
    throw std::runtime_error("OpenSSL EVP_Digest(md5) failed");
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * size);
  for (unsigned int i = 0; i < size; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 0xf];
  }
  return out;
}

}  // namespace kjudge
