#include "core/datapack.h"

#include <archive.h>
#include <archive_entry.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iterator>
#include <limits>
#include <set>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

#include "core/atomic_file.h"
#include "core/json_peek.h"
#include "core/md5.h"
#include "core/problem_dir.h"
#include "core/problem_json.h"
#include "core/read_file.h"
#include "core/time_stamp.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using nlohmann::ordered_json;

constexpr const char* kMetadataFile = "metadata.json";
constexpr const char* kProblemsFile = "problems.jsonl";
constexpr const char* kSolutionsFile = "solutions.jsonl";
// A pack member larger than this is refused rather than inflated into memory: the real packs
// are a few MiB, so anything near this is a broken or hostile archive.
constexpr int64_t kMaxMemberBytes = int64_t{1} << 30;
// A pack has two members; ComputeEval's own tools add none. Walking millions of empty headers
// would only cost time, so an archive with more entries than this is refused.
constexpr int kMaxArchiveEntries = 1000;

std::string member_label(const fs::path& pack, const char* member) {
  return pack.string() + ":" + member;
}

bool starts_with_gzip_magic(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char magic[2] = {0, 0};
  in.read(reinterpret_cast<char*>(magic), 2);
  return in.gcount() == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

// Before anything opens it: opening a FIFO blocks, and a 0-byte file is no pack or list.
void require_regular_file(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError(path.string(), 0, "", "no such file");
  if (!fs::is_regular_file(path, ec))
    throw InputError(path.string(), 0, "", "not a regular file (a FIFO or device is not read)");
  if (fs::file_size(path, ec) == 0) throw InputError(path.string(), 0, "", "the file is empty");
}

// Members are never extracted, but a name that would climb out of a folder or that repeats a
// wanted member says the archive was not written by a pack writer.
void check_member_name(const std::string& where, const std::string& name) {
  bool climbs = name.empty() || name.front() == '/';
  for (const auto& part : fs::path(name))
    if (part == "..") climbs = true;
  if (climbs)
    throw InputError(where, 0, "",
                     "archive member \"" + name + "\" has an absolute or \"..\" path; refused");
}

// The named members of a .tar.gz; members not asked for are skipped. Absent members are absent
// from the result.
std::map<std::string, std::string> read_tar_gz(const fs::path& path,
                                               const std::set<std::string>& wanted) {
  const std::string where = path.string();
  require_regular_file(path);
  // ComputeEval opens packs with tarfile "r:gz", so a plain tar (which libarchive would happily
  // read) is refused here too rather than producing a pack only we can read.
  if (!starts_with_gzip_magic(path)) {
    throw InputError(where, 0, "", "not a gzip-compressed tar archive (a pack is a .tar.gz)");
  }
  archive* a = archive_read_new();
  if (a == nullptr) throw std::runtime_error("archive_read_new failed");
  struct Closer {
    archive* a;
    ~Closer() { archive_read_free(a); }
  } closer{a};
  archive_read_support_filter_gzip(a);
  archive_read_support_format_tar(a);
  auto malformed = [&](const char* what) {
    const char* detail = archive_error_string(a);
    return InputError(where, 0, "",
                      std::string("malformed archive (") + what + ")" +
                          (detail != nullptr ? std::string(": ") + detail : std::string()));
  };
  if (archive_read_open_filename(a, where.c_str(), 1 << 16) != ARCHIVE_OK) {
    throw malformed("cannot open");
  }
  std::map<std::string, std::string> out;
  for (int entries = 0;; ++entries) {
    archive_entry* entry = nullptr;
    const int rc = archive_read_next_header(a, &entry);
    if (rc == ARCHIVE_EOF) break;
    if (rc < ARCHIVE_WARN) throw malformed("bad header");
    if (entries >= kMaxArchiveEntries)
      throw InputError(where, 0, "",
                       "more than " + std::to_string(kMaxArchiveEntries) +
                           " archive members (a pack has metadata.json and one .jsonl)");
    std::string name =
        archive_entry_pathname(entry) != nullptr ? archive_entry_pathname(entry) : "";
    check_member_name(where, name);
    // Packs made with the tar tool carry "./" prefixes; Python's tarfile writes none.
    while (name.rfind("./", 0) == 0) name.erase(0, 2);
    if (!wanted.contains(name)) continue;
    // Other members may be folders (the tar tool writes "./"); a wanted one must be a file.
    if (archive_entry_filetype(entry) != AE_IFREG)
      throw InputError(where, 0, "",
                       "archive member " + name +
                           " is not a regular file (a link or device); pack members must be");
    if (out.contains(name))
      throw InputError(where, 0, "", "archive member " + name + " appears twice");
    if (archive_entry_size_is_set(entry) && archive_entry_size(entry) > kMaxMemberBytes) {
      throw InputError(where, 0, "", name + " is larger than 1 GiB");
    }
    std::string data;
    char buffer[1 << 16];
    for (;;) {
      const la_ssize_t n = archive_read_data(a, buffer, sizeof buffer);
      if (n == 0) break;
      if (n < 0) throw malformed("bad data");
      data.append(buffer, static_cast<size_t>(n));
      if (static_cast<int64_t>(data.size()) > kMaxMemberBytes) {
        throw InputError(where, 0, "", name + " is larger than 1 GiB");
      }
    }
    out[name] = std::move(data);
  }
  return out;
}

struct TarMember {
  std::string name;
  std::string data;
};

// Writes the members to a temporary file beside `path`, then renames it over `path`, so a
// reader never sees half a pack.
void write_tar_gz_atomically(const fs::path& path, const std::vector<TarMember>& members) {
  AtomicFile file(path);
  const std::string temp = file.temp().string();
  archive* a = archive_write_new();
  if (a == nullptr) throw std::runtime_error("archive_write_new failed");
  auto fail = [&](const std::string& what) {
    std::string message = "cannot write " + path.string() + ": " + what;
    if (const char* detail = archive_error_string(a)) message += ": " + std::string(detail);
    archive_write_free(a);
    throw std::runtime_error(message);
  };
  if (archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
      archive_write_set_format_pax_restricted(a) != ARCHIVE_OK) {
    fail("archive setup");
  }
  if (archive_write_open_filename(a, temp.c_str()) != ARCHIVE_OK) fail("open " + temp);
  const time_t now = std::time(nullptr);
  for (const TarMember& m : members) {
    archive_entry* entry = archive_entry_new();
    archive_entry_set_pathname(entry, m.name.c_str());
    archive_entry_set_filetype(entry, AE_IFREG);
    archive_entry_set_perm(entry, 0644);
    archive_entry_set_size(entry, static_cast<la_int64_t>(m.data.size()));
    archive_entry_set_mtime(entry, now, 0);
    const bool ok = archive_write_header(a, entry) == ARCHIVE_OK &&
                    archive_write_data(a, m.data.data(), m.data.size()) ==
                        static_cast<la_ssize_t>(m.data.size());
    archive_entry_free(entry);
    if (!ok) fail("member " + m.name);
  }
  if (archive_write_close(a) != ARCHIVE_OK) fail("close");
  archive_write_free(a);
  file.commit();
}

// Python's datetime.now().isoformat(), which is what ComputeEval stores in created_at.
std::string now_iso() {
  const auto now = std::chrono::system_clock::now();
  const time_t seconds = std::chrono::system_clock::to_time_t(now);
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() %
      1000000;
  char frac[16];
  std::snprintf(frac, sizeof frac, ".%06lld", static_cast<long long>(micros));
  return format_time(seconds, "%Y-%m-%dT%H:%M:%S", false) + frac;
}

// One non-blank line of a JSONL member.
struct JsonlLine {
  int number;             // 1-based
  std::string_view text;  // without the trailing "\n"
  bool has_newline;
};

bool is_blank(std::string_view s) {
  return s.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos;
}

std::vector<JsonlLine> split_jsonl(std::string_view data) {
  std::vector<JsonlLine> out;
  int number = 0;
  size_t start = 0;
  while (start < data.size()) {
    ++number;
    const size_t end = data.find('\n', start);
    const bool has_newline = end != std::string_view::npos;
    const std::string_view text = data.substr(start, (has_newline ? end : data.size()) - start);
    if (!is_blank(text)) out.push_back({number, text, has_newline});
    start = has_newline ? end + 1 : data.size();
  }
  return out;
}

// Metadata errors are fatal: without release and hashes there is no pack to speak of.
class MetadataReader {
 public:
  MetadataReader(const std::string& file, const json& j) : file_(file), j_(j) {
    if (!j.is_object()) fail("", std::string("expected object, got ") + j.type_name());
  }

  [[noreturn]] void fail(const std::string& field, const std::string& reason) const {
    throw InputError(file_, 0, field, reason);
  }

  const json* find(const char* key) const {
    auto it = j_.find(key);
    return it == j_.end() || it->is_null() ? nullptr : &*it;
  }

  std::string req_string(const char* key) const {
    const json* v = find(key);
    if (v == nullptr) fail(key, "missing required field");
    if (!v->is_string()) fail(key, std::string("expected string, got ") + v->type_name());
    return v->get<std::string>();
  }

  std::optional<std::string> opt_string(const char* key) const {
    const json* v = find(key);
    if (v == nullptr) return std::nullopt;
    if (!v->is_string()) fail(key, std::string("expected string, got ") + v->type_name());
    return v->get<std::string>();
  }

  int req_count(const char* key) const {
    const json* v = find(key);
    if (v == nullptr) fail(key, "missing required field");
    if (!v->is_number_integer()) fail(key, std::string("expected integer, got ") + v->type_name());
    const int64_t n = v->get<int64_t>();
    if (n < 0 || n > std::numeric_limits<int>::max()) fail(key, "out of range");
    return static_cast<int>(n);
  }

 private:
  const std::string& file_;
  const json& j_;
};

ProblemPackMetadata parse_problem_metadata(const std::string& file, const std::string& text) {
  const json j = parse_json_text(text, file, 0);
  const MetadataReader r(file, j);
  ProblemPackMetadata m;
  m.release = r.req_string("release");
  m.total_count = r.req_count("total_count");
  m.created_at = r.opt_string("created_at").value_or("");
  m.description = r.opt_string("description");
  if (const json* hashes = r.find("task_id_hashes")) {
    if (!hashes->is_object()) {
      r.fail("task_id_hashes", std::string("expected object, got ") + hashes->type_name());
    }
    for (const auto& [task_id, hash] : hashes->items()) {
      if (!hash.is_string()) {
        r.fail("task_id_hashes." + task_id,
               std::string("expected string, got ") + hash.type_name());
      }
      m.task_id_hashes[task_id] = hash.get<std::string>();
    }
  }
  return m;
}

SolutionPackMetadata parse_solution_metadata(const std::string& file, const std::string& text) {
  const json j = parse_json_text(text, file, 0);
  const MetadataReader r(file, j);
  SolutionPackMetadata m;
  m.release = r.req_string("release");
  m.total_count = r.req_count("total_count");
  m.created_at = r.opt_string("created_at").value_or("");
  m.description = r.opt_string("description");
  if (const json* groups = r.find("groups")) {
    if (!groups->is_array()) {
      r.fail("groups", std::string("expected list of strings, got ") + groups->type_name());
    }
    m.groups.emplace();
    for (size_t i = 0; i < groups->size(); ++i) {
      const json& g = (*groups)[i];
      if (!g.is_string()) {
        r.fail("groups[" + std::to_string(i) + "]",
               std::string("expected string, got ") + g.type_name());
      }
      m.groups->push_back(g.get<std::string>());
    }
  }
  return m;
}

struct ParsedProblems {
  std::vector<Problem> problems;
  std::vector<PackLine> lines;
  int record_count = 0;
};

ParsedProblems parse_problem_lines(std::string_view data, const std::string& label,
                                   LoadReport* report) {
  ParsedProblems out;
  for (const JsonlLine& line : split_jsonl(data)) {
    ++out.record_count;
    try {
      Problem p =
          problem_from_json(parse_json_text(line.text, label, line.number), label, line.number);
      // The hash covers the line as written, "\n" included; a last line without one is hashed
      // as ComputeEval would have written it.
      std::string raw(line.text);
      raw += '\n';
      out.lines.push_back({line.number, md5_hex(raw)});
      out.problems.push_back(std::move(p));
    } catch (InputError& e) {
      report_error(report, std::move(e));
    }
  }
  return out;
}

// A line too large to parse: whose it is, read from its text, and why it is not judged.
Solution oversized_solution(std::string_view text, const std::string& label, int line) {
  Solution s;
  const std::optional<std::string> task = peek_string_field(text, "task_id");
  if (!task || task->empty())
    throw InputError(label, line, "task_id",
                     "a line of " + std::to_string(text.size()) + " bytes (over the " +
                         std::to_string(kMaxSolutionRecordBytes >> 20) +
                         " MiB a solution may take) with no task_id found");
  s.task_id = *task;
  const std::optional<long long> sample = peek_int_field(text, "sample");
  if (sample && *sample >= 0 && *sample <= std::numeric_limits<int>::max())
    s.sample = static_cast<int>(*sample);
  s.refused = "the solution's record is " + std::to_string(text.size()) + " bytes, over the " +
              std::to_string(kMaxSolutionRecordBytes >> 20) +
              " MiB the judge reads for one solution (" + label + " line " + std::to_string(line) +
              ")";
  return s;
}

struct ParsedSolutions {
  std::vector<Solution> solutions;
  std::vector<int> lines;
};

ParsedSolutions parse_solution_lines(std::string_view data, const std::string& label,
                                     LoadReport* report) {
  ParsedSolutions out;
  std::unordered_map<std::string, int> seen_per_task;
  std::map<std::pair<std::string, int>, int> line_of_sample;
  for (const JsonlLine& line : split_jsonl(data)) {
    try {
      Solution s;
      bool has_sample = false;
      if (line.text.size() > kMaxSolutionRecordBytes) {
        s = oversized_solution(line.text, label, line.number);
        has_sample = peek_int_field(line.text, "sample").has_value();
      } else {
        const json j = parse_json_text(line.text, label, line.number);
        s = solution_from_json(j, label, line.number);
        has_sample = solution_has_sample(j);
      }
      int& ordinal = seen_per_task[s.task_id];
      if (!has_sample) s.sample = ordinal;
      ++ordinal;
      auto [it, inserted] = line_of_sample.try_emplace({s.task_id, s.sample}, line.number);
      if (!inserted) {
        throw InputError(label, line.number, "sample",
                         "duplicate sample " + std::to_string(s.sample) + " of task " + s.task_id +
                             " (also on line " + std::to_string(it->second) + ")");
      }
      out.lines.push_back(line.number);
      out.solutions.push_back(std::move(s));
    } catch (InputError& e) {
      report_error(report, std::move(e));
    }
  }
  return out;
}

// Drops problems whose task_id came earlier, reporting each.
std::vector<Problem> drop_duplicate_tasks(std::vector<Problem> problems,
                                          const std::vector<int>& lines, const std::string& label,
                                          LoadReport* report) {
  std::unordered_map<std::string, int> first_line;
  std::vector<Problem> out;
  out.reserve(problems.size());
  for (size_t i = 0; i < problems.size(); ++i) {
    const int line = i < lines.size() ? lines[i] : 0;
    auto [it, inserted] = first_line.try_emplace(problems[i].task_id, line);
    if (!inserted) {
      report_error(report,
                   InputError(label, line, "task_id",
                              "duplicate task_id " + problems[i].task_id + " (first on line " +
                                  std::to_string(it->second) + "); this one is ignored"));
      continue;
    }
    out.push_back(std::move(problems[i]));
  }
  return out;
}

std::string dump_metadata(const ordered_json& j) { return j.dump(2); }

ordered_json description_json(const std::optional<std::string>& description) {
  return description ? ordered_json(*description) : ordered_json(nullptr);
}

void check_files(const std::vector<SourceFile>& files, const std::string& where,
                 const std::string& field) {
  for (size_t i = 0; i < files.size(); ++i) {
    check_relative_path(files[i].path, where, 0, field + "[" + std::to_string(i) + "].path");
  }
}

}  // namespace

void report_error(LoadReport* report, InputError error) {
  if (report == nullptr) throw error;
  report->errors.push_back(std::move(error));
}

ProblemPack read_problem_pack(const std::filesystem::path& path, LoadReport* report) {
  auto members = read_tar_gz(path, {kMetadataFile, kProblemsFile});
  const std::string where = path.string();
  if (!members.contains(kMetadataFile)) {
    throw InputError(where, 0, "", "not a problem pack: metadata.json is missing");
  }
  if (!members.contains(kProblemsFile)) {
    throw InputError(where, 0, "", "not a problem pack: problems.jsonl is missing");
  }
  ProblemPack pack;
  pack.path = where;
  pack.metadata = parse_problem_metadata(member_label(path, kMetadataFile), members[kMetadataFile]);
  ParsedProblems parsed =
      parse_problem_lines(members[kProblemsFile], member_label(path, kProblemsFile), report);
  pack.problems = std::move(parsed.problems);
  pack.lines = std::move(parsed.lines);
  pack.record_count = parsed.record_count;
  return pack;
}

std::vector<IntegrityIssue> verify_pack(const ProblemPack& pack) {
  using Kind = IntegrityIssue::Kind;
  std::vector<IntegrityIssue> issues;
  std::unordered_map<std::string, int> first_line;
  for (size_t i = 0; i < pack.problems.size(); ++i) {
    const std::string& task = pack.problems[i].task_id;
    const PackLine line = i < pack.lines.size() ? pack.lines[i] : PackLine{};
    const std::string at =
        "task " + task + " (problems.jsonl line " + std::to_string(line.line) + ")";
    auto [it, inserted] = first_line.try_emplace(task, line.line);
    if (!inserted) {
      issues.push_back({Kind::kDuplicateTaskId, task,
                        at + ": task_id already used on line " + std::to_string(it->second)});
    }
    auto hash = pack.metadata.task_id_hashes.find(task);
    if (hash == pack.metadata.task_id_hashes.end()) {
      issues.push_back({Kind::kMissingHash, task, at + ": not listed in task_id_hashes"});
      continue;
    }
    std::string expected = hash->second;
    for (char& c : expected) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (expected != line.md5) {
      issues.push_back({Kind::kHashMismatch, task,
                        at + ": line md5 is " + line.md5 + " but task_id_hashes says " +
                            hash->second + " (the problem was modified after packing)"});
    }
  }
  for (const auto& [task, hash] : pack.metadata.task_id_hashes) {
    if (!first_line.contains(task)) {
      issues.push_back({Kind::kUnknownHash, task,
                        "task " + task + ": listed in task_id_hashes but not in problems.jsonl"});
    }
  }
  if (pack.metadata.total_count != pack.record_count) {
    issues.push_back({Kind::kCountMismatch, "",
                      "metadata total_count is " + std::to_string(pack.metadata.total_count) +
                          " but problems.jsonl has " + std::to_string(pack.record_count) +
                          " lines"});
  }
  return issues;
}

void write_problem_pack(const std::filesystem::path& path, const std::string& release,
                        const std::optional<std::string>& description,
                        const std::vector<Problem>& problems) {
  const std::string where = path.string();
  std::string lines;
  ordered_json hashes = ordered_json::object();
  for (const Problem& p : problems) {
    if (hashes.contains(p.task_id)) {
      throw InputError(where, 0, "task_id", "duplicate task_id " + p.task_id + " in the pack");
    }
    check_files(p.context_files, where, "task " + p.task_id + ": context_files");
    check_files(p.test_files, where, "task " + p.task_id + ": test_files");
    if (p.baseline_solution) {
      check_files(p.baseline_solution->files, where,
                  "task " + p.task_id + ": baseline_solution.files");
    }
    std::string line;
    try {
      line = problem_to_json_line(p) + "\n";
    } catch (const InputError& e) {
      throw InputError(where, 0, e.field(), e.reason());
    }
    hashes[p.task_id] = md5_hex(line);
    lines += line;
  }
  ordered_json meta;
  meta["release"] = release;
  meta["total_count"] = problems.size();
  meta["created_at"] = now_iso();
  meta["description"] = description_json(description);
  meta["task_id_hashes"] = std::move(hashes);
  write_tar_gz_atomically(path, {{kMetadataFile, dump_metadata(meta)}, {kProblemsFile, lines}});
}

SolutionPack read_solution_pack(const std::filesystem::path& path, LoadReport* report) {
  auto members = read_tar_gz(path, {kMetadataFile, kSolutionsFile});
  const std::string where = path.string();
  if (!members.contains(kMetadataFile)) {
    throw InputError(where, 0, "", "not a solution pack: metadata.json is missing");
  }
  if (!members.contains(kSolutionsFile)) {
    throw InputError(where, 0, "", "not a solution pack: solutions.jsonl is missing");
  }
  SolutionPack pack;
  pack.path = where;
  pack.metadata =
      parse_solution_metadata(member_label(path, kMetadataFile), members[kMetadataFile]);
  ParsedSolutions parsed =
      parse_solution_lines(members[kSolutionsFile], member_label(path, kSolutionsFile), report);
  pack.solutions = std::move(parsed.solutions);
  pack.lines = std::move(parsed.lines);
  return pack;
}

void write_solution_pack(const std::filesystem::path& path, const std::string& release,
                         const std::optional<std::string>& description,
                         const std::optional<std::vector<std::string>>& groups,
                         const std::vector<Solution>& solutions) {
  const std::string where = path.string();
  std::string lines;
  std::set<std::pair<std::string, int>> seen;
  for (const Solution& s : solutions) {
    if (!seen.emplace(s.task_id, s.sample).second) {
      throw InputError(where, 0, "sample",
                       "duplicate sample " + std::to_string(s.sample) + " of task " + s.task_id);
    }
    // Paths stay as the model wrote them; the judge, not the pack, rejects escapes.
    try {
      lines += solution_to_json_line(s) + "\n";
    } catch (const InputError& e) {
      throw InputError(where, 0, e.field(), e.reason());
    }
  }
  ordered_json meta;
  meta["release"] = release;
  meta["total_count"] = solutions.size();
  meta["created_at"] = now_iso();
  meta["description"] = description_json(description);
  meta["groups"] = groups ? ordered_json(*groups) : ordered_json(nullptr);
  write_tar_gz_atomically(path, {{kMetadataFile, dump_metadata(meta)}, {kSolutionsFile, lines}});
}

std::vector<Problem> read_problems_jsonl(const std::filesystem::path& path, LoadReport* report) {
  require_regular_file(path);
  return parse_problem_lines(read_input_file(path), path.string(), report).problems;
}

std::vector<Solution> read_solutions_jsonl(const std::filesystem::path& path, LoadReport* report) {
  require_regular_file(path);
  return parse_solution_lines(read_input_file(path), path.string(), report).solutions;
}

namespace {

// Nothing to judge is never what the user meant: a pack or list with no records (not even bad
// ones, which the report already holds) is an error rather than an empty, successful run.
void require_records(std::size_t loaded, std::size_t errors_before, const LoadReport* report,
                     const std::string& label, const char* what) {
  if (loaded == 0 && (report == nullptr || report->errors.size() == errors_before))
    throw InputError(label, 0, "", std::string("holds no ") + what);
}

}  // namespace

std::vector<Problem> read_problems_any(const std::filesystem::path& path, LoadReport* report) {
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    throw InputError(path.string(), 0, "", "no such file or directory");
  }
  if (fs::is_directory(path, ec)) return load_problem_dirs(path, report);
  require_regular_file(path);
  const std::size_t errors_before = report != nullptr ? report->errors.size() : 0;
  std::string label;
  ParsedProblems parsed;
  if (starts_with_gzip_magic(path)) {
    ProblemPack pack = read_problem_pack(path, report);
    label = member_label(path, kProblemsFile);
    parsed.problems = std::move(pack.problems);
    parsed.lines = std::move(pack.lines);
  } else {
    require_regular_file(path);
    label = path.string();
    parsed = parse_problem_lines(read_input_file(path), label, report);
  }
  require_records(parsed.problems.size(), errors_before, report, label, "problems");
  std::vector<int> lines;
  lines.reserve(parsed.lines.size());
  for (const PackLine& l : parsed.lines) lines.push_back(l.line);
  return drop_duplicate_tasks(std::move(parsed.problems), lines, label, report);
}

std::vector<Solution> read_solutions_any(const std::filesystem::path& path, LoadReport* report) {
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    throw InputError(path.string(), 0, "", "no such file or directory");
  }
  if (fs::is_directory(path, ec)) return load_solution_dirs(path, report);
  require_regular_file(path);
  const std::size_t errors_before = report != nullptr ? report->errors.size() : 0;
  std::vector<Solution> solutions = starts_with_gzip_magic(path)
                                        ? read_solution_pack(path, report).solutions
                                        : read_solutions_jsonl(path, report);
  require_records(solutions.size(), errors_before, report, path.string(), "solutions");
  return solutions;
}

}  // namespace kjudge
