// Reading KernelBench solutions: a JSON-lines file or KernelBench's run folder.
// Declared, and explained, in kernelbench/solutions/solutions.h.
#include "kernelbench/solutions/solutions.h"

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "core/input_error.h"
#include "core/read_file.h"

namespace kjudge::kernelbench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A solution is one Python file; the largest KernelBench answers are tens of KiB.
constexpr std::uintmax_t kMaxKernelBytes = std::uintmax_t{4} << 20;
constexpr long long kMaxSample = 1000000;

// Samples given so far per problem: an explicit one twice is an error, a missing one is the next.
struct Samples {
  std::map<const Problem*, std::set<int>> taken;

  int next(const Problem* p) const {
    auto it = taken.find(p);
    return it == taken.end() || it->second.empty() ? 0 : *it->second.rbegin() + 1;
  }
  bool take(const Problem* p, int s) { return taken[p].insert(s).second; }
};

int integer_field(const json& j, const char* key, const std::string& file, int line, long long lo,
                  long long hi) {
  const json& v = j.at(key);
  if (!v.is_number_integer() || v.get<long long>() < lo || v.get<long long>() > hi)
    throw InputError(file, line, key, fmt::format("not an integer in {}..{}", lo, hi));
  return v.get<int>();
}

// The level a line names, before its problem is looked up (0: it does not say).
int line_level(const json& j, const std::string& file, int line) {
  if (j.contains("level")) return integer_field(j, "level", file, line, 1, 999);
  if (j.contains("problem") && j["problem"].is_string())
    if (auto ref = parse_problem_ref(j["problem"].get<std::string>())) return ref->level;
  return 0;
}

const Problem* resolve(const json& j, const Dataset& d, const std::string& file, int line) {
  const int level = line_level(j, file, line);
  if (j.contains("problem_id")) {
    if (level == 0) throw InputError(file, line, "level", "missing (problem_id needs a level)");
    const int id = integer_field(j, "problem_id", file, line, 1, 999999);
    const Problem* p = d.find(level, id);
    if (!p)
      throw InputError(file, line, "problem_id",
                       fmt::format("no problem {} in level {} of {}", id, level, d.dir.string()));
    return p;
  }
  if (!j.contains("problem"))
    throw InputError(file, line, "problem",
                     "missing (give \"level\" and \"problem_id\", or \"problem\": \"L1/19\")");
  const json& v = j["problem"];
  if (v.is_number_integer()) {
    if (level == 0) throw InputError(file, line, "level", "missing (a problem number needs one)");
    const Problem* p = d.find(level, v.get<int>());
    if (!p)
      throw InputError(file, line, "problem",
                       fmt::format("no problem {} in level {}", v.get<long long>(), level));
    return p;
  }
  if (!v.is_string()) throw InputError(file, line, "problem", "not a string or a number");
  const std::string text = v.get<std::string>();
  if (auto ref = parse_problem_ref(text)) {
    if (j.contains("level") && ref->level != level)
      throw InputError(file, line, "level",
                       fmt::format("{} but \"problem\" says level {}", level, ref->level));
    const Problem* p =
        ref->file.empty() ? d.find(ref->level, ref->id) : d.find_file(ref->level, ref->file);
    if (!p) throw InputError(file, line, "problem", "no problem '" + text + "' in the data folder");
    return p;
  }
  // A bare file name ("19_ReLU.py"), as KernelBench's baseline files key problems.
  if (level == 0)
    throw InputError(file, line, "level",
                     "missing (\"" + text + "\" names no level: give \"level\" or \"L1/19\")");
  const Problem* p = d.find_file(level, text);
  if (!p)
    throw InputError(file, line, "problem",
                     fmt::format("no problem '{}' in level {}", text, level));
  return p;
}

std::vector<Solution> read_jsonl(const fs::path& path, const Dataset& d, int only_level) {
  const std::string name = path.string();
  const std::string content = read_input_file(path);
  std::vector<Solution> out;
  Samples samples;
  std::size_t pos = 0;
  int line_no = 0;
  while (pos < content.size()) {
    std::size_t nl = content.find('\n', pos);
    if (nl == std::string::npos) nl = content.size();
    const std::string line = content.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json j;
    try {
      j = json::parse(line);
    } catch (const json::parse_error& e) {
      throw InputError(name, line_no, "", std::string("not JSON: ") + e.what());
    }
    if (!j.is_object()) throw InputError(name, line_no, "", "expected a JSON object");
    const int level = line_level(j, name, line_no);
    if (only_level > 0 && level != 0 && level != only_level) continue;
    const Problem* p = resolve(j, d, name, line_no);
    if (!j.contains("code")) throw InputError(name, line_no, "code", "missing");
    if (!j["code"].is_string()) throw InputError(name, line_no, "code", "not a string");
    Solution s;
    s.problem = p;
    s.code = j["code"].get<std::string>();
    s.origin = fmt::format("{}:{}", name, line_no);
    const char* sample_key = j.contains("sample")      ? "sample"
                             : j.contains("sample_id") ? "sample_id"
                                                       : nullptr;
    s.sample =
        sample_key ? integer_field(j, sample_key, name, line_no, 0, kMaxSample) : samples.next(p);
    if (!samples.take(p, s.sample))
      throw InputError(
          name, line_no, sample_key ? sample_key : "sample",
          fmt::format("sample {} of {} ({}) given twice", s.sample, p->key(), p->file));
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<Solution> read_run_folder(const fs::path& dir, const Dataset& d, int only_level) {
  static const std::regex re(R"(^level_(\d{1,3})_problem_(\d{1,6})_sample_(\d{1,7})_kernel\.py$)");
  std::vector<Solution> out;
  Samples samples;
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (std::regex_match(entry.path().filename().string(), re)) files.push_back(entry.path());
  if (ec) throw InputError(dir.string(), 0, "", "cannot be read: " + ec.message());
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    std::smatch m;
    const std::string file = f.filename().string();
    std::regex_match(file, m, re);
    const int level = std::stoi(m[1].str());
    const int id = std::stoi(m[2].str());
    const long long sample = std::stoll(m[3].str());
    if (only_level > 0 && level != only_level) continue;
    const Problem* p = d.find(level, id);
    if (!p)
      throw InputError(f.string(), 0, "",
                       fmt::format("no problem {} in level {} of {}", id, level, d.dir.string()));
    if (sample > kMaxSample) throw InputError(f.string(), 0, "", "sample number too large");
    Solution s;
    s.problem = p;
    s.sample = static_cast<int>(sample);
    // Found by walking the folder: a link there could point anywhere.
    s.code = read_input_file(f, kMaxKernelBytes, Links::refuse);
    s.origin = f.string();
    // Two spellings of one number ("sample_01", "sample_1") would be one solution twice.
    if (!samples.take(p, s.sample))
      throw InputError(
          f.string(), 0, "",
          fmt::format("sample {} of {} is given by another file too", s.sample, p->key()));
    out.push_back(std::move(s));
  }
  if (out.empty() && only_level == 0)
    throw InputError(dir.string(), 0, "",
                     "holds no level_<L>_problem_<P>_sample_<S>_kernel.py (KernelBench's run "
                     "folder layout)");
  return out;
}

}  // namespace

std::string Solution::key() const { return fmt::format("{}#{}", problem->key(), sample); }

std::string kernel_file_name(int level, int problem, int sample) {
  return fmt::format("level_{}_problem_{}_sample_{}_kernel.py", level, problem, sample);
}

std::vector<Solution> read_solutions(const fs::path& path, const Dataset& dataset, int only_level) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return read_run_folder(path, dataset, only_level);
  return read_jsonl(path, dataset, only_level);
}

std::vector<Solution> self_solutions(const Dataset& dataset) {
  static const std::regex model(R"(\bModel\b)");
  std::vector<Solution> out;
  for (const Problem& p : dataset.problems) {
    Solution s;
    s.problem = &p;
    s.code = std::regex_replace(p.code, model, "ModelNew");
    s.origin = p.path.string() + " (--self)";
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace kjudge::kernelbench
