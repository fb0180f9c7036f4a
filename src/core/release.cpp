#include "core/release.h"

#include <cstdlib>
#include <regex>
#include <set>

#include "core/input_error.h"

namespace kjudge {

namespace fs = std::filesystem;

std::vector<fs::path> release_folders(const std::string& given) {
  std::vector<fs::path> roots;
  if (!given.empty()) {
    roots.emplace_back(given);
  } else if (const char* env = std::getenv("KJUDGE_DATASETS"); env && *env) {
    roots.emplace_back(env);
  } else {
    if (const char* home = std::getenv("HOME"); home && *home)
      roots.push_back(fs::path(home) / ".local/share/kjudge/datasets");
    roots.emplace_back("/opt/kjudge/datasets");
  }
  std::vector<fs::path> out;
  for (const fs::path& r : roots) {
    out.push_back(r);
    out.push_back(r / "compute-eval");
  }
  return out;
}

fs::path resolve_release(const std::string& release, const std::string& given,
                         const std::string& option) {
  // A release is a name, never a path: nothing outside the datasets folder is reached by it.
  static const std::regex kName(R"([0-9]{4}-[0-9]+[A-Za-z0-9._-]*)");
  if (!std::regex_match(release, kName))
    throw InputError(
        option, 0, "",
        "'" + release + "' is not a release name (ComputeEval's: 2025-1, 2026-1, ...)");
  std::string looked, found;
  std::set<std::string> names;
  for (const fs::path& dir : release_folders(given)) {
    std::error_code ec;
    const fs::path pack = dir / (release + "-problems.tar.gz");
    if (fs::is_regular_file(pack, ec)) return pack;
    looked += (looked.empty() ? "" : ", ") + dir.string();
    if (fs::is_directory(dir, ec))
      for (const auto& e : fs::directory_iterator(dir, ec)) {
        const std::string n = e.path().filename().string();
        const std::string suffix = "-problems.tar.gz";
        if (n.size() > suffix.size() && n.ends_with(suffix))
          names.insert(n.substr(0, n.size() - suffix.size()));
      }
  }
  for (const std::string& n : names) found += (found.empty() ? "" : ", ") + n;
  throw InputError(
      option, 0, "",
      "release " + release + " not found: no " + release + "-problems.tar.gz in " + looked +
          (found.empty() ? std::string("; no release there") : "; releases there: " + found) +
          " (--datasets DIR or $KJUDGE_DATASETS names the folder)");
}

}  // namespace kjudge
