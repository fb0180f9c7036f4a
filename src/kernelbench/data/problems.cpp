// Reading a KernelBench data folder into problems.
// Declared, and explained, in kernelbench/data/problems.h.
#include "kernelbench/data/problems.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>

#include "core/input_error.h"
#include "core/read_file.h"
#include "eval/static_flags.h"

namespace kjudge::kernelbench {
namespace {

namespace fs = std::filesystem;

// The biggest problem file is 12 KiB; anything near this cap is not a KernelBench problem.
constexpr std::uintmax_t kMaxProblemBytes = std::uintmax_t{1} << 20;

// "level12" -> 12; 0 for anything else.
int level_of(const std::string& folder) {
  if (folder.size() < 6 || folder.compare(0, 5, "level") != 0) return 0;
  const std::string digits = folder.substr(5);
  if (digits.empty() || digits.size() > 3 ||
      !std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); }))
    return 0;
  return std::stoi(digits);
}

// The folder holding levelN/: `dir` itself, or the repository root's KernelBench/.
fs::path level_root(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw InputError(dir.string(), 0, "", "not a folder (give the KernelBench data folder)");
  auto has_levels = [](const fs::path& d) {
    std::error_code e;
    for (const auto& entry : fs::directory_iterator(d, e))
      if (entry.is_directory(e) && level_of(entry.path().filename().string()) > 0) return true;
    return false;
  };
  if (has_levels(dir)) return dir;
  if (fs::is_directory(dir / "KernelBench", ec) && has_levels(dir / "KernelBench"))
    return dir / "KernelBench";
  throw InputError(dir.string(), 0, "",
                   "holds no level1/, level2/ ... folders (nor does its KernelBench/): not a "
                   "KernelBench data folder");
}

// What a problem file must define, read in its code (comments and strings do not count).
void check_definitions(const Problem& p) {
  const std::string code = strip_python(p.code).code;
  static const std::regex model(R"((^|\n)class[ \t]+Model\b)");
  static const std::regex inputs(R"((^|\n)def[ \t]+get_inputs[ \t]*\()");
  static const std::regex init(R"((^|\n)def[ \t]+get_init_inputs[ \t]*\()");
  const char* missing = !std::regex_search(code, model)    ? "class Model"
                        : !std::regex_search(code, inputs) ? "def get_inputs()"
                        : !std::regex_search(code, init)   ? "def get_init_inputs()"
                                                           : nullptr;
  if (missing)
    throw InputError(p.path.string(), 0, "",
                     fmt::format("defines no top-level {}: not a KernelBench problem", missing));
}

std::vector<Problem> read_level(const fs::path& folder, int level) {
  std::map<int, Problem> by_id;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const fs::path path = entry.path();
    const std::string file = path.filename().string();
    if (path.extension() != ".py" || entry.is_directory(ec)) continue;
    std::size_t digits = 0;
    while (digits < file.size() && std::isdigit(static_cast<unsigned char>(file[digits]))) ++digits;
    if (digits == 0 || digits > 6 || digits >= file.size() || file[digits] != '_' ||
        file.size() <= digits + 4)
      throw InputError(path.string(), 0, "",
                       "not named <number>_<name>.py, as every KernelBench problem is (move it "
                       "out of the level folder)");
    Problem p;
    p.level = level;
    p.id = std::stoi(file.substr(0, digits));
    p.file = file;
    p.name = file.substr(digits + 1, file.size() - digits - 4);
    p.path = path;
    if (p.id <= 0) throw InputError(path.string(), 0, "", "problem numbers start at 1");
    // A problem is read like any input the user names: a regular file, bounded; a link found by
    // walking the folder could point anywhere.
    p.code = read_input_file(path, kMaxProblemBytes, Links::refuse);
    check_definitions(p);
    auto [it, fresh] = by_id.emplace(p.id, p);
    if (!fresh)
      throw InputError(
          path.string(), 0, "",
          fmt::format("problem {} of level {} is also {}", p.id, level, it->second.file));
  }
  if (ec) throw InputError(folder.string(), 0, "", "cannot be read: " + ec.message());
  std::vector<Problem> out;
  for (auto& [id, p] : by_id) out.push_back(std::move(p));
  return out;
}

}  // namespace

std::string Problem::key() const { return fmt::format("L{}/{}", level, id); }

bool Problem::needs_hf() const { return level == 4; }

const Problem* Dataset::find(int level, int id) const {
  for (const Problem& p : problems)
    if (p.level == level && p.id == id) return &p;
  return nullptr;
}

const Problem* Dataset::find_file(int level, const std::string& file) const {
  for (const Problem& p : problems)
    if (p.level == level && (p.file == file || p.file == file + ".py")) return &p;
  return nullptr;
}

Dataset load_kernelbench(const fs::path& dir, int only_level) {
  Dataset d;
  d.dir = level_root(dir);
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(d.dir, ec)) {
    const int level = level_of(entry.path().filename().string());
    if (level > 0 && entry.is_directory(ec) && (only_level == 0 || level == only_level))
      d.levels.push_back(level);
  }
  std::sort(d.levels.begin(), d.levels.end());
  if (only_level > 0 && d.levels.empty())
    throw InputError(d.dir.string(), 0, "level",
                     fmt::format("no level{}/ folder in the data folder", only_level));
  for (int level : d.levels) {
    const fs::path folder = d.dir / fmt::format("level{}", level);
    std::vector<Problem> ps = read_level(folder, level);
    if (ps.empty())
      throw InputError(folder.string(), 0, "", "holds no problem (<number>_<name>.py)");
    for (Problem& p : ps) d.problems.push_back(std::move(p));
  }
  return d;
}

std::optional<ProblemRef> parse_problem_ref(const std::string& text) {
  static const std::regex re(R"(^(?:L|level)?(\d{1,3})/(\d{1,6})(_[^/]*)?$)");
  std::smatch m;
  if (!std::regex_match(text, m, re)) return std::nullopt;
  ProblemRef r;
  r.level = std::stoi(m[1].str());
  if (r.level <= 0) return std::nullopt;
  if (m[3].matched) {
    r.file = m[2].str() + m[3].str();
  } else {
    r.id = std::stoi(m[2].str());
    if (r.id <= 0) return std::nullopt;
  }
  return r;
}

}  // namespace kjudge::kernelbench
