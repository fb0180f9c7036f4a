#include "run/extra_libs.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace kjudge {

namespace fs = std::filesystem;

namespace {

bool is_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

std::string read_stamp(const fs::path& file) {
  std::ifstream in(file);
  std::ostringstream s;
  // A few lines of names and versions; anything longer is not the installer's.
  char buf[4096];
  in.read(buf, sizeof buf);
  s.write(buf, in.gcount());
  return s.str();
}

}  // namespace

std::optional<ExtraLibs> find_extra_libs() {
  std::vector<fs::path> candidates;
  if (const char* v = std::getenv("KJUDGE_LIBS"); v && *v) {
    if (std::string(v) == "none") return std::nullopt;
    candidates.emplace_back(v);
  } else {
    // A bundle (scripts/gpu-bundle) carries its folder beside the binary.
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) candidates.push_back(self.parent_path() / "libs");
    candidates.emplace_back("/opt/kjudge/libs");
    if (const char* home = std::getenv("HOME"); home && *home)
      candidates.push_back(fs::path(home) / ".local/share/kjudge/libs");
  }
  for (const fs::path& c : candidates) {
    if (!is_dir(c)) continue;
    std::error_code ec;
    ExtraLibs libs;
    libs.root = fs::weakly_canonical(fs::absolute(c, ec), ec);
    if (ec) continue;
    if (is_dir(libs.root / "include")) libs.include_dir = libs.root / "include";
    if (is_dir(libs.root / "lib")) libs.lib_dir = libs.root / "lib";
    libs.stamp = read_stamp(libs.root / "kjudge-libs.txt");
    return libs;
  }
  return std::nullopt;
}

std::vector<std::string> extra_libs_env(const ExtraLibs& libs, bool after_inherited) {
  std::vector<std::string> env;
  auto add = [&](const char* var, const fs::path& dir) {
    if (dir.empty()) return;
    std::string value = dir.string();
    if (after_inherited)
      if (const char* was = std::getenv(var); was && *was) value += std::string(":") + was;
    env.push_back(std::string(var) + "=" + value);
  };
  add("CPATH", libs.include_dir);
  add("LIBRARY_PATH", libs.lib_dir);
  add("LD_LIBRARY_PATH", libs.lib_dir);
  return env;
}

}  // namespace kjudge
