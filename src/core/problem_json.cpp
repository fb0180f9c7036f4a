#include "core/problem_json.h"

#include <cmath>
#include <limits>

#include "core/input_bounds.h"

namespace kjudge {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

constexpr int kProblemSchemaVersion = 2;
constexpr int kSolutionSchemaVersion = 1;
// ComputeEval's default for a problem that does not name a compute capability at all.
constexpr const char* kDefaultComputeCapability = "8.0";

std::string child(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

std::string element(const std::string& parent, size_t i) {
  return parent + "[" + std::to_string(i) + "]";
}

std::string quoted_list(std::initializer_list<const char*> values) {
  std::string out;
  for (const char* v : values) {
    if (!out.empty()) out += ", ";
    out += '"';
    out += v;
    out += '"';
  }
  return out;
}

bool one_of(const std::string& value, std::initializer_list<const char*> values) {
  for (const char* v : values) {
    if (value == v) return true;
  }
  return false;
}

// Field access with errors that name the field. Optional fields treat null as absent, as
// pydantic does for `X | None = default` fields.
class Reader {
 public:
  Reader(const std::string& file, int line) : file_(file), line_(line) {}

  [[noreturn]] void fail(const std::string& field, const std::string& reason) const {
    throw InputError(file_, line_, field, reason);
  }

  [[noreturn]] void wrong_type(const std::string& field, const char* expected,
                               const json& got) const {
    fail(field, std::string("expected ") + expected + ", got " + got.type_name());
  }

  void expect_object(const json& v, const std::string& field) const {
    if (!v.is_object()) wrong_type(field, "object", v);
  }

  // nullptr when the key is absent or null.
  static const json* find(const json& obj, const char* key) {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return nullptr;
    return &*it;
  }

  const json& require(const json& obj, const char* key, const std::string& path) const {
    auto it = obj.find(key);
    if (it == obj.end()) fail(child(path, key), "missing required field");
    return *it;
  }

  std::string as_string(const json& v, const std::string& field) const {
    if (!v.is_string()) wrong_type(field, "string", v);
    return v.get<std::string>();
  }

  std::string req_string(const json& obj, const char* key, const std::string& path) const {
    return as_string(require(obj, key, path), child(path, key));
  }

  std::string req_nonempty_string(const json& obj, const char* key, const std::string& path) const {
    std::string s = req_string(obj, key, path);
    if (s.empty()) fail(child(path, key), "must not be empty");
    return s;
  }

  std::optional<std::string> opt_string(const json& obj, const char* key,
                                        const std::string& path) const {
    const json* v = find(obj, key);
    if (v == nullptr) return std::nullopt;
    return as_string(*v, child(path, key));
  }

  bool opt_bool(const json& obj, const char* key, const std::string& path, bool fallback) const {
    const json* v = find(obj, key);
    if (v == nullptr) return fallback;
    if (!v->is_boolean()) wrong_type(child(path, key), "boolean", *v);
    return v->get<bool>();
  }

  int as_int(const json& v, const std::string& field) const {
    // pydantic's lax mode takes 2.0 for an int; so do we.
    if (v.is_number_integer()) {
      if (v.is_number_unsigned() ? v.get<uint64_t>() > uint64_t{std::numeric_limits<int>::max()}
                                 : (v.get<int64_t>() > std::numeric_limits<int>::max() ||
                                    v.get<int64_t>() < std::numeric_limits<int>::min())) {
        fail(field, "integer out of range");
      }
      return static_cast<int>(v.get<int64_t>());
    }
    if (v.is_number_float()) {
      const double d = v.get<double>();
      if (std::trunc(d) == d && std::abs(d) <= std::numeric_limits<int>::max()) {
        return static_cast<int>(d);
      }
    }
    wrong_type(field, "integer", v);
  }

  std::optional<int> opt_int(const json& obj, const char* key, const std::string& path) const {
    const json* v = find(obj, key);
    if (v == nullptr) return std::nullopt;
    return as_int(*v, child(path, key));
  }

  std::optional<double> opt_number(const json& obj, const char* key,
                                   const std::string& path) const {
    const json* v = find(obj, key);
    if (v == nullptr) return std::nullopt;
    if (!v->is_number()) wrong_type(child(path, key), "number", *v);
    return v->get<double>();
  }

  std::vector<std::string> string_list(const json& v, const std::string& field) const {
    if (!v.is_array()) wrong_type(field, "list of strings", v);
    std::vector<std::string> out;
    out.reserve(v.size());
    for (size_t i = 0; i < v.size(); ++i) out.push_back(as_string(v[i], element(field, i)));
    return out;
  }

  std::vector<std::string> opt_string_list(const json& obj, const char* key,
                                           const std::string& path) const {
    const json* v = find(obj, key);
    if (v == nullptr) return {};
    return string_list(*v, child(path, key));
  }

  // Problem files are checked here; a solution's paths are not: a path that leaves the
  // workspace is the model's doing and gets the verdict invalid_solution from the judge.
  std::vector<SourceFile> opt_files(const json& obj, const char* key, const std::string& path,
                                    bool check_paths = true) const {
    const json* v = find(obj, key);
    if (v == nullptr) return {};
    const std::string field = child(path, key);
    if (!v->is_array()) wrong_type(field, "list of files", *v);
    std::vector<SourceFile> out;
    out.reserve(v->size());
    for (size_t i = 0; i < v->size(); ++i) {
      const std::string item = element(field, i);
      const json& f = (*v)[i];
      expect_object(f, item);
      SourceFile file;
      file.path = req_string(f, "path", item);
      if (check_paths) check_relative_path(file.path, file_, line_, child(item, "path"));
      file.content = req_string(f, "content", item);
      out.push_back(std::move(file));
    }
    return out;
  }

 private:
  const std::string& file_;
  int line_;
};

Solution read_solution(const Reader& r, const json& j, const std::string& path) {
  r.expect_object(j, path);
  const int version = r.opt_int(j, "schema_version", path).value_or(kSolutionSchemaVersion);
  if (version != kSolutionSchemaVersion) {
    r.fail(child(path, "schema_version"), "unsupported solution schema_version " +
                                              std::to_string(version) + " (this judge reads " +
                                              std::to_string(kSolutionSchemaVersion) + ")");
  }
  const std::string type = r.req_string(j, "type", path);
  if (type == "patch") {
    r.fail(child(path, "type"),
           "\"patch\" solutions are not supported (ComputeEval cannot evaluate them either); "
           "send type \"file\" with the full files");
  }
  if (type != "file") {
    r.fail(child(path, "type"), "unknown solution type \"" + type + "\" (expected \"file\")");
  }
  Solution s;
  s.task_id = r.req_nonempty_string(j, "task_id", path);
  s.files = r.opt_files(j, "files", path, /*check_paths=*/false);
  return s;
}

SourceReferences read_source_references(const Reader& r, const json& v, const std::string& field) {
  SourceReferences refs;
  if (v.is_string()) {
    refs.all.push_back(v.get<std::string>());
  } else if (v.is_array()) {
    refs.all = r.string_list(v, field);
  } else if (v.is_object()) {
    refs.any = r.opt_string_list(v, "any", field);
    refs.all = r.opt_string_list(v, "all", field);
  } else {
    r.wrong_type(field, "string, list of strings or {\"any\", \"all\"} object", v);
  }
  return refs;
}

TimingMode read_timing_mode(const Reader& r, const json& v, const std::string& field) {
  r.expect_object(v, field);
  TimingMode mode;
  mode.type = r.req_string(v, "type", field);
  if (!one_of(mode.type, {"process", "kernels", "region", "gpu", "custom"})) {
    r.fail(child(field, "type"),
           "unknown timing mode \"" + mode.type + "\" (expected one of " +
               quoted_list({"process", "kernels", "region", "gpu", "custom"}) + ")");
  }
  mode.include = r.opt_string_list(v, "include", field);
  mode.exclude = r.opt_string_list(v, "exclude", field);
  if (mode.type == "region") {
    mode.time_type = r.opt_string(v, "time_type", field).value_or("kernel");
    if (!one_of(mode.time_type, {"kernel", "wall_clock"})) {
      r.fail(child(field, "time_type"), "unknown time_type \"" + mode.time_type +
                                            "\" (expected \"kernel\" or \"wall_clock\")");
    }
  }
  return mode;
}

ordered_json files_to_json(const std::vector<SourceFile>& files) {
  ordered_json out = ordered_json::array();
  for (const SourceFile& f : files) {
    ordered_json item;
    item["path"] = f.path;
    item["content"] = f.content;
    out.push_back(std::move(item));
  }
  return out;
}

ordered_json list_or_null(const std::vector<std::string>& values) {
  return values.empty() ? ordered_json(nullptr) : ordered_json(values);
}

// Escapes raw control characters inside JSON strings, which Python's json.loads(strict=False)
// accepts and nlohmann rejects. Only used after a strict parse failed.
std::string escape_control_chars_in_strings(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 16);
  bool in_string = false;
  bool escaped = false;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      } else if (u < 0x20) {
        static constexpr char kHex[] = "0123456789abcdef";
        out += "\\u00";
        out += kHex[u >> 4];
        out += kHex[u & 0xf];
        continue;
      }
    } else if (c == '"') {
      in_string = true;
    }
    out += c;
  }
  return out;
}

// nlohmann's messages start with "[json.exception.parse_error.101] parse error at line 1, ";
// the location is ours to give, and the token echo can be as long as a whole file's content.
std::string parse_error_reason(const nlohmann::json::exception& e) {
  std::string msg = e.what();
  if (auto pos = msg.find("] "); pos != std::string::npos) msg.erase(0, pos + 2);
  if (auto pos = msg.find("column "); pos != std::string::npos) msg.erase(0, pos);
  constexpr size_t kMax = 240;
  if (msg.size() > kMax) msg = msg.substr(0, kMax) + "...";
  return "invalid JSON: " + msg;
}

// nlohmann refuses to write invalid UTF-8, which only a Problem built in memory can hold.
std::string dump_line(const ordered_json& j, const std::string& task_id) {
  try {
    return j.dump();
  } catch (const nlohmann::json::type_error& e) {
    throw InputError("", 0, "", "task " + task_id + ": cannot encode as JSON: " + e.what());
  }
}

}  // namespace

void check_relative_path(const std::string& path, const std::string& file, int line,
                         const std::string& field) {
  if (path.empty()) throw InputError(file, line, field, "path must not be empty");
  if (path.front() == '/') {
    throw InputError(file, line, field, "path \"" + path + "\" must be relative");
  }
  if (path.find('\0') != std::string::npos) {
    throw InputError(file, line, field, "path must not contain a NUL byte");
  }
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    if (path.compare(start, end - start, "..") == 0 && end - start == 2) {
      throw InputError(file, line, field, "path \"" + path + "\" must not contain \"..\"");
    }
    start = end + 1;
  }
}

nlohmann::json parse_json_text(std::string_view text, const std::string& file, int line) {
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::parse_error& first) {
    try {
      return json::parse(escape_control_chars_in_strings(text));
    } catch (const json::exception&) {
      throw InputError(file, line, "", parse_error_reason(first));
    }
  } catch (const json::out_of_range& e) {
    // A number past a double's range (1e999) is the line's fault, not the whole input's.
    throw InputError(file, line, "", parse_error_reason(e));
  }
}

Problem problem_from_json(const nlohmann::json& j, const std::string& file, int line) {
  const Reader r(file, line);
  r.expect_object(j, "");
  Problem p;
  // The version comes first so that a future format fails with one clear message instead of a
  // list of fields it happens to lack.
  p.schema_version = r.opt_int(j, "schema_version", "").value_or(kProblemSchemaVersion);
  if (p.schema_version != 1 && p.schema_version != kProblemSchemaVersion) {
    r.fail("schema_version", "unsupported problem schema_version " +
                                 std::to_string(p.schema_version) + " (this judge reads 1 and " +
                                 std::to_string(kProblemSchemaVersion) + ")");
  }
  p.type = r.req_string(j, "type", "");
  if (!one_of(p.type, {"cuda_cpp", "cuda_python"})) {
    r.fail("type", "unknown problem type \"" + p.type + "\" (expected \"cuda_cpp\" or " +
                       "\"cuda_python\")");
  }
  p.task_id = r.req_nonempty_string(j, "task_id", "");
  p.date = r.req_string(j, "date", "");
  p.prompt = r.req_string(j, "prompt", "");

  const json& meta = r.require(j, "metadata", "");
  r.expect_object(meta, "metadata");
  p.difficulty = r.opt_string(meta, "difficulty", "metadata").value_or("");
  p.tags = r.opt_string_list(meta, "tags", "metadata");
  p.releases = r.opt_string_list(meta, "releases", "metadata");
  p.do_not_release = r.opt_bool(meta, "do_not_release", "metadata", false);
  p.host_only = r.opt_bool(meta, "host_only", "metadata", false);

  p.group = r.req_string(j, "group", "");
  p.context_files = r.opt_files(j, "context_files", "");
  p.test_files = r.opt_files(j, "test_files", "");
  if (const json* v = Reader::find(j, "source_references")) {
    p.source_references = read_source_references(r, *v, "source_references");
  }
  p.build_command = r.opt_string(j, "build_command", "");
  p.test_command = r.req_string(j, "test_command", "");
  p.benchmark_command = r.opt_string(j, "benchmark_command", "");
  if (const json* v = Reader::find(j, "timing_mode")) {
    p.timing_mode = read_timing_mode(r, *v, "timing_mode");
  }
  p.min_cuda_toolkit = r.opt_string(j, "min_cuda_toolkit", "");
  if (j.contains("compute_capability")) {
    p.compute_capability = r.opt_string(j, "compute_capability", "");
  } else {
    p.compute_capability = kDefaultComputeCapability;
  }
  p.requires_datacenter_gpu = r.opt_bool(j, "requires_datacenter_gpu", "", false);
  p.timeout_seconds = r.opt_number(j, "timeout_seconds", "");
  if (p.timeout_seconds && !(*p.timeout_seconds > 0 && *p.timeout_seconds <= kMaxTimeoutSeconds)) {
    r.fail("timeout_seconds", "must be more than 0 and at most " +
                                  std::to_string(static_cast<int>(kMaxTimeoutSeconds)) +
                                  " (one day)");
  }
  if (const json* v = Reader::find(j, "baseline_solution")) {
    p.baseline_solution = read_solution(r, *v, "baseline_solution");
  }
  return p;
}

nlohmann::ordered_json problem_to_json(const Problem& p) {
  ordered_json j;
  j["type"] = p.type;
  j["schema_version"] = p.schema_version;
  j["task_id"] = p.task_id;
  j["date"] = p.date;
  j["prompt"] = p.prompt;
  ordered_json meta;
  if (!p.difficulty.empty()) meta["difficulty"] = p.difficulty;
  meta["tags"] = p.tags;
  meta["releases"] = p.releases;
  meta["do_not_release"] = p.do_not_release;
  // Written only when set, so packs without the extension stay byte-identical to ComputeEval's.
  if (p.host_only) meta["host_only"] = true;
  j["metadata"] = std::move(meta);
  j["group"] = p.group;
  j["context_files"] = files_to_json(p.context_files);
  j["test_files"] = files_to_json(p.test_files);
  if (p.source_references) {
    ordered_json refs;
    refs["any"] = list_or_null(p.source_references->any);
    // ComputeEval rejects an object with both sides null, so an empty reference set keeps [].
    refs["all"] = p.source_references->any.empty() ? ordered_json(p.source_references->all)
                                                   : list_or_null(p.source_references->all);
    j["source_references"] = std::move(refs);
  }
  if (p.build_command) j["build_command"] = *p.build_command;
  j["test_command"] = p.test_command;
  if (p.benchmark_command) j["benchmark_command"] = *p.benchmark_command;
  ordered_json timing;
  timing["type"] = p.timing_mode.type;
  if (!p.timing_mode.include.empty()) timing["include"] = p.timing_mode.include;
  if (!p.timing_mode.exclude.empty()) timing["exclude"] = p.timing_mode.exclude;
  if (!p.timing_mode.time_type.empty()) timing["time_type"] = p.timing_mode.time_type;
  j["timing_mode"] = std::move(timing);
  if (p.min_cuda_toolkit) j["min_cuda_toolkit"] = *p.min_cuda_toolkit;
  j["compute_capability"] =
      p.compute_capability ? ordered_json(*p.compute_capability) : ordered_json(nullptr);
  j["requires_datacenter_gpu"] = p.requires_datacenter_gpu;
  if (p.timeout_seconds) j["timeout_seconds"] = *p.timeout_seconds;
  if (p.baseline_solution) j["baseline_solution"] = solution_to_json(*p.baseline_solution, false);
  return j;
}

Solution solution_from_json(const nlohmann::json& j, const std::string& file, int line) {
  const Reader r(file, line);
  Solution s = read_solution(r, j, "");
  if (auto sample = r.opt_int(j, "sample", "")) {
    if (*sample < 0) r.fail("sample", "must not be negative");
    s.sample = *sample;
  }
  return s;
}

bool solution_has_sample(const nlohmann::json& j) {
  return j.is_object() && Reader::find(j, "sample") != nullptr;
}

nlohmann::ordered_json solution_to_json(const Solution& s, bool with_sample) {
  ordered_json j;
  j["schema_version"] = kSolutionSchemaVersion;
  j["type"] = "file";
  j["task_id"] = s.task_id;
  j["files"] = files_to_json(s.files);
  if (with_sample) j["sample"] = s.sample;
  return j;
}

std::string problem_to_json_line(const Problem& problem) {
  return dump_line(problem_to_json(problem), problem.task_id);
}

std::string solution_to_json_line(const Solution& solution) {
  return dump_line(solution_to_json(solution), solution.task_id);
}

}  // namespace kjudge
