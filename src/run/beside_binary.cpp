#include "run/beside_binary.h"

#include <cstdlib>

namespace kjudge {

namespace fs = std::filesystem;

fs::path locate_beside_binary(const char* env_var, const std::string& file) {
  if (const char* e = std::getenv(env_var); e && *e) return e;
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  // scripts/gpu-bundle puts libraries in lib/; a build tree has them beside the binary; an
  // installed kjudge (cmake --install, the Debian package) in PREFIX/lib/kjudge/.
  const fs::path bin = self.parent_path();
  for (const fs::path& p :
       {bin / "lib" / file, bin / file, bin.parent_path() / "lib" / "kjudge" / file})
    if (fs::exists(p, ec)) return fs::canonical(p, ec);
  return {};
}

}  // namespace kjudge
