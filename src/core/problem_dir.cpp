#include "core/problem_dir.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <unordered_map>

#include "core/atomic_file.h"
#include "core/problem_json.h"
#include "core/read_file.h"
#include "core/yaml_load.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using nlohmann::ordered_json;

constexpr const char* kContextDir = "context";
constexpr const char* kTestDir = "test";
constexpr const char* kSolutionDir = "solution";

// YAML gives every scalar as text. Typing it by YAML's own rules would turn `date: 2025-10-31`
// or `compute_capability: 9.0` into non-strings, so a plain scalar becomes a number or a boolean
// only where the field is one; elsewhere it stays text. null / ~ / empty are null everywhere.
const std::set<std::string>& numeric_fields() {
  static const std::set<std::string> fields = {"schema_version", "timeout_seconds", "sample"};
  return fields;
}

const std::set<std::string>& boolean_fields() {
  static const std::set<std::string> fields = {"requires_datacenter_gpu", "metadata.do_not_release",
                                               "metadata.host_only"};
  return fields;
}

const std::set<std::string>& problem_spec_keys() {
  static const std::set<std::string> keys = {"type",
                                             "schema_version",
                                             "task_id",
                                             "date",
                                             "prompt",
                                             "metadata",
                                             "group",
                                             "source_references",
                                             "build_command",
                                             "test_command",
                                             "benchmark_command",
                                             "timing_mode",
                                             "min_cuda_toolkit",
                                             "compute_capability",
                                             "requires_datacenter_gpu",
                                             "timeout_seconds"};
  return keys;
}

const std::set<std::string>& solution_spec_keys() {
  static const std::set<std::string> keys = {"task_id", "sample"};
  return keys;
}

bool is_null_word(const std::string& s) {
  return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}

std::optional<json> parse_number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  const char* begin = s.c_str();
  char* end = nullptr;
  errno = 0;
  const long long i = std::strtoll(begin, &end, 10);
  if (*end == '\0' && errno == 0) return json(i);
  errno = 0;
  const double d = std::strtod(begin, &end);
  if (*end == '\0' && errno == 0 && std::isfinite(d)) return json(d);
  return std::nullopt;
}

// A YAML document as JSON, remembering the line each field path starts on so that errors found
// later by problem_from_json can point into the file.
class YamlToJson {
 public:
  explicit YamlToJson(std::string file) : file_(std::move(file)) {}

  json convert(const YAML::Node& node, const std::string& path) {
    switch (node.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null:
        return nullptr;
      case YAML::NodeType::Scalar:
        return scalar(node, path);
      case YAML::NodeType::Sequence: {
        json out = json::array();
        size_t i = 0;
        for (const YAML::Node& item : node) {
          const std::string item_path = path + "[" + std::to_string(i++) + "]";
          remember(item_path, item.Mark());
          out.push_back(convert(item, item_path));
        }
        return out;
      }
      case YAML::NodeType::Map: {
        json out = json::object();
        for (auto it = node.begin(); it != node.end(); ++it) {
          if (!it->first.IsScalar()) {
            throw InputError(file_, line_of(it->first.Mark()), path, "keys must be plain names");
          }
          const std::string key = it->first.Scalar();
          const std::string key_path = path.empty() ? key : path + "." + key;
          if (out.contains(key)) {
            throw InputError(file_, line_of(it->first.Mark()), key_path, "duplicate key");
          }
          remember(key_path, it->first.Mark());
          out[key] = convert(it->second, key_path);
        }
        return out;
      }
    }
    return nullptr;
  }

  // The line of `field`, else of the nearest enclosing field that has one, else 0.
  int line_for(std::string field) const {
    for (;;) {
      if (auto it = lines_.find(field); it != lines_.end()) return it->second;
      const size_t cut = field.find_last_of(".[");
      if (cut == std::string::npos) break;
      field.erase(cut);
    }
    return 0;
  }

  static int line_of(const YAML::Mark& mark) { return mark.line >= 0 ? mark.line + 1 : 0; }

 private:
  json scalar(const YAML::Node& node, const std::string& path) {
    const std::string& text = node.Scalar();
    // yaml-cpp tags quoted and block scalars "!" and plain ones "?": only plain ones are typed.
    if (node.Tag() != "?") return text;
    if (is_null_word(text)) return nullptr;
    const std::string generic = generic_path(path);
    if (numeric_fields().contains(generic)) {
      if (auto number = parse_number(text)) return *number;
    }
    if (boolean_fields().contains(generic)) {
      if (text == "true" || text == "True" || text == "TRUE") return true;
      if (text == "false" || text == "False" || text == "FALSE") return false;
    }
    return text;
  }

  // "metadata.tags[3]" -> "metadata.tags[]": the typing rules do not depend on the index.
  static std::string generic_path(const std::string& path) {
    std::string out;
    bool in_index = false;
    for (char c : path) {
      if (c == '[') in_index = true;
      if (!in_index) out += c;
      if (c == ']') {
        out += "[]";
        in_index = false;
      }
    }
    return out;
  }

  void remember(const std::string& path, const YAML::Mark& mark) {
    if (int line = line_of(mark); line > 0) lines_.emplace(path, line);
  }

  std::string file_;
  std::map<std::string, int> lines_;
};

constexpr const char* kLinkRefused =
    "is a symbolic link; problem and solution folders may hold regular files only";

YAML::Node load_yaml(const fs::path& spec) {
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(spec, ec);
  if (fs::is_symlink(st)) throw InputError(spec.string(), 0, "", kLinkRefused);
  if (!fs::is_regular_file(st)) {
    throw InputError(spec.string(), 0, "", "missing (or not a file)");
  }
  return load_yaml_file(spec);
}

// The spec as JSON after checking its top-level keys, plus the converter for error lines.
json read_spec(const fs::path& spec, const std::set<std::string>& allowed, YamlToJson& converter,
               const std::map<std::string, std::string>& misplaced) {
  const YAML::Node root = load_yaml(spec);
  const std::string file = spec.string();
  if (!root.IsMap()) throw InputError(file, 1, "", "expected a mapping of fields");
  for (auto it = root.begin(); it != root.end(); ++it) {
    const int line = YamlToJson::line_of(it->first.Mark());
    if (!it->first.IsScalar()) throw InputError(file, line, "", "keys must be plain names");
    const std::string key = it->first.Scalar();
    if (auto m = misplaced.find(key); m != misplaced.end()) {
      throw InputError(file, line, key, m->second);
    }
    // ComputeEval ignores unknown JSON keys, but in a hand-written spec one is almost always a
    // typo that would silently drop a setting.
    if (!allowed.contains(key)) throw InputError(file, line, key, "unknown field");
  }
  return converter.convert(root, "");
}

bool is_valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t len = 0;
    uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xe0) == 0xc0) {
      len = 2;
      cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
      len = 3;
      cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
      len = 4;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + len > s.size()) return false;
    for (size_t k = 1; k < len; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3f);
    }
    // Overlong forms, surrogates and values past U+10FFFF are what JSON encoders reject.
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) {
      return false;
    }
    i += len;
  }
  return true;
}

std::string read_text_file(const fs::path& path) {
  std::string data = read_input_file(path, kMaxInputFileBytes, Links::refuse);
  if (!is_valid_utf8(data)) {
    throw InputError(path.string(), 0, "", "not UTF-8 text (problem and solution files must be)");
  }
  return data;
}

// Every regular file under `base`, as `prefix` + path relative to base, sorted by path.
// `skip` (relative to base) is left out. An absent base gives no files.
std::vector<SourceFile> read_tree(const fs::path& base, const std::string& prefix,
                                  const std::string& skip = "") {
  std::error_code ec;
  const fs::file_status base_status = fs::symlink_status(base, ec);
  if (!fs::exists(base_status)) return {};
  if (fs::is_symlink(base_status)) throw InputError(base.string(), 0, "", kLinkRefused);
  if (!fs::is_directory(base_status))
    throw InputError(base.string(), 0, "", "expected a directory");
  std::vector<SourceFile> files;
  for (auto it = fs::recursive_directory_iterator(base, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    // What a link points to is not the author's file (run as root, a link to /etc/shadow would
    // put it in the pack), and a FIFO or device is no source file: both are refused, by name.
    std::error_code se;
    const fs::file_status st = it->symlink_status(se);
    if (fs::is_symlink(st)) throw InputError(it->path().string(), 0, "", kLinkRefused);
    if (fs::is_directory(st)) continue;
    if (!fs::is_regular_file(st))
      throw InputError(
          it->path().string(), 0, "",
          "not a regular file (a FIFO, socket or device); only regular files are read");
    const std::string rel = it->path().lexically_relative(base).generic_string();
    if (rel == skip) continue;
    files.push_back({prefix + rel, read_text_file(it->path())});
  }
  if (ec) throw InputError(base.string(), 0, "", "cannot list directory: " + ec.message());
  std::sort(files.begin(), files.end(),
            [](const SourceFile& a, const SourceFile& b) { return a.path < b.path; });
  return files;
}

// Directories at or below root that hold `spec_name`, without looking inside those; sorted.
void find_spec_dirs(const fs::path& dir, const char* spec_name, std::vector<fs::path>& out) {
  std::error_code ec;
  if (fs::is_regular_file(dir / spec_name, ec)) {
    out.push_back(dir);
    return;
  }
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::end(it); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    // Symlinked directories could loop; dot-directories (.git) never hold problems.
    if (it->is_symlink() || !it->is_directory() || name.starts_with(".")) continue;
    find_spec_dirs(it->path(), spec_name, out);
  }
}

std::vector<fs::path> spec_dirs_under(const fs::path& root, const char* spec_name) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) throw InputError(root.string(), 0, "", "not a directory");
  std::vector<fs::path> dirs;
  find_spec_dirs(root, spec_name, dirs);
  if (dirs.empty()) {
    throw InputError(root.string(), 0, "",
                     std::string("no ") + spec_name + " in this directory or below it");
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

// ---- writing --------------------------------------------------------------------------------

bool is_plain_safe(const std::string& s) {
  if (s.empty() || !std::isalpha(static_cast<unsigned char>(s.front())) || s.back() == ' ') {
    return false;
  }
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) &&
        std::string_view(" _./+=@,()-").find(c) == std::string_view::npos) {
      return false;
    }
  }
  // Words other YAML readers (1.1) turn into null or booleans.
  std::string lower = s;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static const std::set<std::string> reserved = {"null", "true", "false", "yes", "no",
                                                 "on",   "off",  "y",     "n"};
  return !reserved.contains(lower);
}

std::string double_quoted(const std::string& s) {
  // A JSON string literal is a valid YAML double-quoted scalar.
  try {
    return json(s).dump();
  } catch (const json::type_error&) {
    throw InputError("", 0, "", "text is not valid UTF-8");
  }
}

// A literal block ("|") reads far better than one long quoted line for prompts and scripts, but
// it cannot hold every string; the candidate is parsed back and used only if it round-trips.
std::optional<std::string> literal_block(const std::string& s, int indent) {
  if (s.find('\n') == std::string::npos) return std::nullopt;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\n' && c != '\t') || u == 0x7f) return std::nullopt;
  }
  size_t trailing = 0;
  while (trailing < s.size() && s[s.size() - 1 - trailing] == '\n') ++trailing;
  std::string header = "|";
  const size_t first = s.find_first_not_of('\n');
  if (first != std::string::npos && (s[first] == ' ' || s[first] == '\t')) {
    header += std::to_string(2);
  }
  header += trailing == 0 ? "-" : trailing == 1 ? "" : "+";
  const std::string pad(static_cast<size_t>(indent), ' ');
  std::string body;
  size_t start = 0;
  const std::string_view content(s.data(), s.size() - (trailing > 0 ? 1 : 0));
  while (start <= content.size()) {
    size_t end = content.find('\n', start);
    if (end == std::string_view::npos) end = content.size();
    const std::string_view line = content.substr(start, end - start);
    body += line.empty() ? "\n" : pad + std::string(line) + "\n";
    start = end + 1;
  }
  std::string block = header + "\n" + body;
  // The judge's own output, not user input, so it is not bounded by load_yaml_text.
  try {
    const YAML::Node check = YAML::Load("k: " + block);
    if (check["k"].IsScalar() && check["k"].Scalar() == s) return block;
  } catch (const YAML::Exception&) {
  }
  return std::nullopt;
}

class YamlWriter {
 public:
  explicit YamlWriter(bool literal_blocks) : literal_blocks_(literal_blocks) {}

  void mapping(const ordered_json& obj, int indent) {
    for (const auto& [key, value] : obj.items()) {
      out_ += std::string(static_cast<size_t>(indent), ' ') + key + ":";
      value_after_key(value, indent);
    }
  }

  std::string take() { return std::move(out_); }

 private:
  void value_after_key(const ordered_json& v, int indent) {
    if (v.is_object() && !v.empty()) {
      out_ += "\n";
      mapping(v, indent + 2);
    } else if (v.is_array() && !v.empty()) {
      out_ += "\n";
      for (const auto& item : v) {
        out_ += std::string(static_cast<size_t>(indent + 2), ' ') + "-";
        if (item.is_object() && !item.empty()) {
          out_ += "\n";
          mapping(item, indent + 4);
        } else {
          scalar(item, indent + 4);
        }
      }
    } else {
      scalar(v, indent + 2);
    }
  }

  // Writes " value\n" (or a block header and its lines) after a key or a dash.
  void scalar(const ordered_json& v, int block_indent) {
    out_ += ' ';
    if (v.is_string()) {
      const std::string& s = v.get_ref<const std::string&>();
      if (is_plain_safe(s)) {
        out_ += s + "\n";
      } else if (auto block = literal_blocks_ ? literal_block(s, block_indent) : std::nullopt) {
        out_ += *block;
      } else {
        out_ += double_quoted(s) + "\n";
      }
    } else {
      // null, booleans, numbers, [] and {} are spelt the same in JSON and YAML.
      out_ += v.dump() + "\n";
    }
  }

  bool literal_blocks_;
  std::string out_;
};

// The spec as YAML that reads back (through YamlToJson) to exactly `spec`. Literal blocks are
// checked one by one, but their indentation rules are subtle enough that the whole document is
// checked too, falling back to quoted strings throughout.
std::string to_yaml(const ordered_json& spec) {
  json expected;
  try {
    expected = json::parse(spec.dump());
  } catch (const json::type_error&) {
    throw InputError("", 0, "", "text is not valid UTF-8");
  }
  for (bool literal_blocks : {true, false}) {
    YamlWriter writer(literal_blocks);
    writer.mapping(spec, 0);
    std::string yaml = writer.take();
    try {
      // Reading back the judge's own output (no anchors), so not through load_yaml_text.
      YamlToJson converter("");
      if (converter.convert(YAML::Load(yaml), "") == expected) return yaml;
    } catch (const std::exception&) {
    }
  }
  throw std::logic_error("kjudge bug: YAML written for a spec does not read back the same");
}

void write_bytes(const fs::path& path, const std::string& data) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec)
    throw std::runtime_error("cannot create " + path.parent_path().string() + ": " + ec.message());
  write_file_atomically(path, data);
}

void prepare_empty_dir(const fs::path& dir) {
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    if (!fs::is_directory(dir, ec))
      throw InputError(dir.string(), 0, "", "exists and is not a directory");
    if (!fs::is_empty(dir, ec)) {
      throw InputError(dir.string(), 0, "", "directory exists and is not empty");
    }
  }
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create " + dir.string() + ": " + ec.message());
}

// Checks each path and that no two files land on the same one; returns the on-disk paths.
std::vector<std::string> checked_paths(const std::vector<SourceFile>& files,
                                       const std::string& where, const std::string& field,
                                       const std::string& strip_prefix,
                                       std::set<std::string>& taken) {
  std::vector<std::string> out;
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string item = field + "[" + std::to_string(i) + "].path";
    std::string path = files[i].path;
    if (!strip_prefix.empty()) {
      if (!path.starts_with(strip_prefix)) {
        throw InputError(where, 0, item,
                         "test file \"" + path + "\" must start with \"" + strip_prefix +
                             "\" to be stored in a problem directory");
      }
    }
    check_relative_path(path.substr(strip_prefix.size()), where, 0, item);
    if (!taken.insert(fs::path(path).lexically_normal().generic_string()).second) {
      throw InputError(where, 0, item, "two files share the path \"" + path + "\"");
    }
    out.push_back(std::move(path));
  }
  return out;
}

}  // namespace

Problem load_problem_dir(const std::filesystem::path& dir) {
  const fs::path spec = dir / kProblemSpecFile;
  const std::string file = spec.string();
  YamlToJson converter(file);
  static const std::map<std::string, std::string> misplaced = {
      {"context_files", "context files live in the context/ directory, not in the spec"},
      {"test_files", "test files live in the test/ directory, not in the spec"},
      {"baseline_solution", "the baseline solution lives in the solution/ directory"}};
  const json j = read_spec(spec, problem_spec_keys(), converter, misplaced);
  Problem p;
  try {
    p = problem_from_json(j, file, 0);
  } catch (const InputError& e) {
    throw InputError(e.file(), converter.line_for(e.field()), e.field(), e.reason());
  }
  p.context_files = read_tree(dir / kContextDir, "");
  p.test_files = read_tree(dir / kTestDir, std::string(kTestDir) + "/");
  std::vector<SourceFile> solution = read_tree(dir / kSolutionDir, "");
  if (!solution.empty()) {
    Solution baseline;
    baseline.task_id = p.task_id;
    baseline.files = std::move(solution);
    p.baseline_solution = std::move(baseline);
  }
  return p;
}

std::vector<Problem> load_problem_dirs(const std::filesystem::path& root, LoadReport* report) {
  std::vector<Problem> problems;
  std::unordered_map<std::string, fs::path> dir_of_task;
  for (const fs::path& dir : spec_dirs_under(root, kProblemSpecFile)) {
    try {
      Problem p = load_problem_dir(dir);
      auto [it, inserted] = dir_of_task.try_emplace(p.task_id, dir);
      if (!inserted) {
        throw InputError((dir / kProblemSpecFile).string(), 0, "task_id",
                         "duplicate task_id " + p.task_id + " (also in " + it->second.string() +
                             "); this one is ignored");
      }
      problems.push_back(std::move(p));
    } catch (InputError& e) {
      report_error(report, std::move(e));
    }
  }
  return problems;
}

void write_problem_dir(const Problem& problem, const std::filesystem::path& dir) {
  const std::string where = dir.string();
  std::set<std::string> context_taken;
  std::set<std::string> test_taken;
  std::set<std::string> solution_taken;
  const auto context_paths =
      checked_paths(problem.context_files, where, "context_files", "", context_taken);
  const auto test_paths = checked_paths(problem.test_files, where, "test_files",
                                        std::string(kTestDir) + "/", test_taken);
  std::vector<std::string> solution_paths;
  if (problem.baseline_solution) {
    solution_paths = checked_paths(problem.baseline_solution->files, where,
                                   "baseline_solution.files", "", solution_taken);
  }
  ordered_json spec = problem_to_json(problem);
  spec.erase("context_files");
  spec.erase("test_files");
  spec.erase("baseline_solution");
  std::string yaml;
  try {
    yaml = to_yaml(spec);
  } catch (const InputError& e) {
    throw InputError(where, 0, "", "problem " + problem.task_id + ": " + e.reason());
  }

  prepare_empty_dir(dir);
  write_bytes(dir / kProblemSpecFile, yaml);
  for (size_t i = 0; i < problem.context_files.size(); ++i) {
    write_bytes(dir / kContextDir / context_paths[i], problem.context_files[i].content);
  }
  for (size_t i = 0; i < problem.test_files.size(); ++i) {
    write_bytes(dir / test_paths[i], problem.test_files[i].content);
  }
  for (size_t i = 0; i < solution_paths.size(); ++i) {
    write_bytes(dir / kSolutionDir / solution_paths[i],
                problem.baseline_solution->files[i].content);
  }
}

namespace {

Solution load_solution_dir_impl(const fs::path& dir, bool* has_sample) {
  const fs::path spec = dir / kSolutionSpecFile;
  const std::string file = spec.string();
  YamlToJson converter(file);
  const json j = read_spec(spec, solution_spec_keys(), converter, {});
  Solution s;
  try {
    // The spec holds only task_id and sample; the rest is what a "file" solution line says.
    json full = j;
    full["type"] = "file";
    s = solution_from_json(full, file, 0);
    *has_sample = solution_has_sample(full);
  } catch (const InputError& e) {
    throw InputError(e.file(), converter.line_for(e.field()), e.field(), e.reason());
  }
  // A folder too large to be a solution is not read into memory: its size is the verdict.
  std::uintmax_t bytes = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    std::error_code fe;
    if (fs::is_regular_file(it->symlink_status(fe))) bytes += it->file_size(fe);
  }
  if (bytes > kMaxSolutionRecordBytes) {
    s.refused = "the solution's folder holds " + std::to_string(bytes) + " bytes, over the " +
                std::to_string(kMaxSolutionRecordBytes >> 20) +
                " MiB the judge reads for one solution (" + dir.string() + ")";
    return s;
  }
  s.files = read_tree(dir, "", kSolutionSpecFile);
  return s;
}

}  // namespace

Solution load_solution_dir(const std::filesystem::path& dir) {
  bool has_sample = false;
  return load_solution_dir_impl(dir, &has_sample);
}

std::vector<Solution> load_solution_dirs(const std::filesystem::path& root, LoadReport* report) {
  std::vector<Solution> solutions;
  std::unordered_map<std::string, int> seen_per_task;
  std::map<std::pair<std::string, int>, fs::path> dir_of_sample;
  for (const fs::path& dir : spec_dirs_under(root, kSolutionSpecFile)) {
    try {
      const fs::path spec = dir / kSolutionSpecFile;
      bool has_sample = false;
      Solution s = load_solution_dir_impl(dir, &has_sample);
      int& ordinal = seen_per_task[s.task_id];
      if (!has_sample) s.sample = ordinal;
      ++ordinal;
      auto [it, inserted] = dir_of_sample.try_emplace({s.task_id, s.sample}, dir);
      if (!inserted) {
        throw InputError(spec.string(), 0, "sample",
                         "duplicate sample " + std::to_string(s.sample) + " of task " + s.task_id +
                             " (also in " + it->second.string() + ")");
      }
      solutions.push_back(std::move(s));
    } catch (InputError& e) {
      report_error(report, std::move(e));
    }
  }
  return solutions;
}

void write_solution_dir(const Solution& solution, const std::filesystem::path& dir) {
  const std::string where = dir.string();
  std::set<std::string> taken = {kSolutionSpecFile};
  const auto paths = checked_paths(solution.files, where, "files", "", taken);
  ordered_json spec;
  spec["task_id"] = solution.task_id;
  spec["sample"] = solution.sample;
  std::string yaml;
  try {
    yaml = to_yaml(spec);
  } catch (const InputError& e) {
    throw InputError(where, 0, "task_id", e.reason());
  }
  prepare_empty_dir(dir);
  write_bytes(dir / kSolutionSpecFile, yaml);
  for (size_t i = 0; i < paths.size(); ++i) write_bytes(dir / paths[i], solution.files[i].content);
}

}  // namespace kjudge
