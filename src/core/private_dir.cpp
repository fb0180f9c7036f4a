#include "core/private_dir.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>

#include "core/error.h"

namespace kjudge {

namespace fs = std::filesystem;

fs::path make_private_dir(const fs::path& parent, const std::string& prefix) {
  std::string tmpl = (parent / (prefix + "XXXXXX")).string();
  if (!mkdtemp(tmpl.data()))
    throw Error(exit_code::environment, "cannot create a private folder under " + parent.string() +
                                            ": " + std::strerror(errno));
  return tmpl;
}

PrivateDir PrivateDir::make(const fs::path& parent, const std::string& prefix) {
  return PrivateDir(make_private_dir(parent, prefix));
}

PrivateDir PrivateDir::try_make(const fs::path& parent, const std::string& prefix) {
  try {
    return make(parent, prefix);
  } catch (const Error&) {
    return PrivateDir();
  }
}

PrivateDir& PrivateDir::operator=(PrivateDir&& o) noexcept {
  if (this != &o) {
    remove();
    path_ = std::move(o.path_);
    o.path_.clear();
  }
  return *this;
}

void PrivateDir::remove() {
  if (path_.empty()) return;
  std::error_code ec;
  fs::remove_all(path_, ec);
  path_.clear();
}

}  // namespace kjudge
