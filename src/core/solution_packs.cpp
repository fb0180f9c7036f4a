// Folders of solution packs and the names of packs (core/solution_packs.h).
#include "core/solution_packs.h"

#include <algorithm>
#include <map>

#include "core/input_error.h"

namespace kjudge {

namespace fs = std::filesystem;

namespace {

constexpr const char* kPackSuffixes[] = {"-solutions.tar.gz", "-solutions.jsonl"};

bool strip_suffix(std::string& s, const std::string& suffix) {
  if (s.size() < suffix.size() || !s.ends_with(suffix)) return false;
  s.resize(s.size() - suffix.size());
  return true;
}

}  // namespace

std::string solutions_pack_name(const fs::path& path) {
  fs::path p = path;
  if (!p.has_filename()) p = p.parent_path();  // "dir/" names the folder
  std::string name = p.filename().string();
  bool stripped = false;
  for (const char* suffix : kPackSuffixes) stripped = stripped || strip_suffix(name, suffix);
  if (!stripped) {
    std::error_code ec;
    if (!fs::is_directory(p, ec))
      for (const char* ext : {".tar.gz", ".tgz", ".jsonl"})
        if (strip_suffix(name, ext)) break;
  }
  return name.empty() || name == "." || name == ".." ? "solutions" : name;
}

std::vector<SolutionPackRef> list_solution_packs(const fs::path& folder) {
  std::vector<SolutionPackRef> packs;
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) return packs;
  std::map<std::string, fs::path> by_name;
  for (const auto& e : fs::directory_iterator(folder, ec)) {
    if (!e.is_regular_file(ec)) continue;
    std::string name = e.path().filename().string();
    bool pack = false;
    for (const char* suffix : kPackSuffixes) pack = pack || strip_suffix(name, suffix);
    if (!pack) continue;
    if (name.empty() || name == "." || name == "..")
      throw InputError(e.path().string(), 0, "",
                       "a solutions pack needs a name before -solutions (NAME-solutions.tar.gz): "
                       "its results go to a folder of that name");
    auto [it, inserted] = by_name.try_emplace(name, e.path());
    if (!inserted)
      throw InputError(folder.string(), 0, "",
                       "two packs are named '" + name + "': " + it->second.filename().string() +
                           " and " + e.path().filename().string() +
                           " (each pack's results go to a folder named after it)");
  }
  if (ec) throw InputError(folder.string(), 0, "", "cannot list the folder: " + ec.message());
  for (auto& [name, path] : by_name) packs.push_back({name, path});
  return packs;
}

}  // namespace kjudge
