#include "run/beside_binary.h"

#include <unistd.h>

#include <cstdlib>
#include <stdexcept>

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

fs::path locate_python_entry(const std::string& file, const char* env_var, const std::string& what,
                             const std::string& preferred) {
  if (!preferred.empty()) {
    if (access(preferred.c_str(), R_OK) != 0)
      throw std::runtime_error(what + " " + preferred + " cannot be read");
    return fs::absolute(preferred);
  }
  if (const char* e = std::getenv(env_var); e && *e)
    return locate_python_entry(file, env_var, what, e);
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  std::vector<fs::path> tried;
  if (!ec) {
    const fs::path bin = self.parent_path();
    tried = {bin / "python" / file, bin.parent_path() / "python" / file,
             bin.parent_path() / "share/kjudge/python" / file};
    for (const fs::path& p : tried)
      if (access(p.c_str(), R_OK) == 0) return p.lexically_normal();
  }
  std::string list;
  for (const fs::path& p : tried) list += " " + p.string();
  throw std::runtime_error("cannot find python/" + file + " (looked at" + list +
                           "); give --runner PATH or set " + env_var);
}

}  // namespace kjudge
