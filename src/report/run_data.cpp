#include "report/run_data.h"

#include <fmt/format.h>

#include <fstream>

#include "core/datapack.h"
#include "core/input_error.h"
#include "eval/graded_json.h"
#include "eval/summary.h"
#include "eval/verdict.h"

namespace kjudge::report {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The newest version of each run file this reader understands (docs/json-schemas.md).
constexpr int kSchemaVersion = 1;

void check_version(const json& j, const fs::path& file, int line) {
  if (!j.contains("schema_version")) return;  // older runs wrote none: version 1
  const json& v = j["schema_version"];
  if (!v.is_number_integer())
    throw InputError(file.string(), line, "schema_version", "is not an integer");
  if (v.get<int>() > kSchemaVersion)
    throw InputError(file.string(), line, "schema_version",
                     fmt::format("is {}; this kjudge reads up to {} (a newer kjudge wrote it)",
                                 v.get<int>(), kSchemaVersion));
}

std::optional<json> read_json_file(const fs::path& p) {
  if (!fs::exists(p)) return std::nullopt;
  std::ifstream in(p, std::ios::binary);
  json j = json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    throw InputError(p.string(), 0, "", "is not a JSON object");
  check_version(j, p, 0);
  return j;
}

// One JSON object per line. A bad line is an error naming it, except an unterminated last line:
// the judge appends lines as solutions finish, so a kill can leave one torn (it grades that
// solution again on --resume), and the report leaves it out with a note.
std::vector<std::pair<int, json>> read_rows(const fs::path& p, std::vector<std::string>& notes) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw InputError(p.string(), 0, "", "cannot be read");
  std::vector<std::pair<int, json>> rows;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    const bool terminated = !in.eof();
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      if (!terminated) {
        notes.push_back(
            fmt::format("{}:{}: a torn last line (the run was killed while writing "
                        "it) is left out",
                        p.string(), lineno));
        break;
      }
      throw InputError(p.string(), lineno, "", "is not a JSON object");
    }
    check_version(j, p, lineno);
    rows.emplace_back(lineno, std::move(j));
  }
  return rows;
}

void check_key_fields(const json& j, const fs::path& p, int line) {
  if (!j.contains("task_id") || !j["task_id"].is_string())
    throw InputError(p.string(), line, "task_id", "missing or not a string");
  if (!j.contains("sample") || !j["sample"].is_number_integer())
    throw InputError(p.string(), line, "sample", "missing or not an integer");
}

void check_result_row(const json& j, const fs::path& p, int line) {
  check_key_fields(j, p, line);
  if (!j.contains("verdict") || !j["verdict"].is_string() ||
      !verdict_from_string(j["verdict"].get<std::string>()))
    throw InputError(
        p.string(), line, "verdict",
        "missing or not a verdict kjudge knows (" + j.value("verdict", json()).dump() + ")");
}

// run.json names the judged inputs as they were given; relative names may be relative to the
// directory the judge ran in, or (a copied run) to the run directory.
std::optional<fs::path> locate(const std::string& name, const fs::path& run_dir) {
  if (name.empty()) return std::nullopt;
  if (fs::exists(name)) return fs::path(name);
  if (fs::path(name).is_relative() && fs::exists(run_dir / name)) return run_dir / name;
  return std::nullopt;
}

void load_inputs(RunData& r, const LoadOptions& o) {
  const std::string command = r.run.value("command", "");
  const std::string pname = o.problems.empty() ? r.run.value("problems", "") : o.problems;
  auto ppath = locate(pname, r.dir);
  if (!ppath) {
    r.notes.push_back(pname.empty()
                          ? "the run names no problems pack: prompts are not shown"
                          : "problems '" + pname +
                                "' not found: prompts are not shown (pass --problems PACK)");
    return;
  }
  try {
    LoadReport lr;
    for (auto& p : read_problems_any(*ppath, &lr)) r.problems[p.task_id] = std::move(p);
    if (!lr.ok())
      r.notes.push_back(
          fmt::format("{}: {} problems could not be read", ppath->string(), lr.errors.size()));
  } catch (const InputError& e) {
    r.notes.push_back(std::string("problems not shown: ") + e.what());
    return;
  }

  if (command == "validate") {
    for (const auto& [id, p] : r.problems)
      if (p.baseline_solution) r.solution_files[{id, 0}] = p.baseline_solution->files;
    return;
  }
  if (command == "run") {  // the model's answers sit beside the results
    const fs::path gen = r.dir / "generation.jsonl";
    if (!fs::exists(gen)) return;
    std::vector<std::string> ignored;
    for (const auto& [line, j] : read_rows(gen, ignored)) {
      if (!j.contains("task_id") || !j.contains("files") || !j["files"].is_array()) continue;
      std::vector<SourceFile> files;
      for (const auto& f : j["files"])
        files.push_back({f.value("path", ""), f.value("content", "")});
      r.solution_files[{j["task_id"].get<std::string>(), j.value("sample", 0)}] = files;
    }
    return;
  }
  const std::string sname = o.solutions.empty() ? r.run.value("solutions", "") : o.solutions;
  auto spath = locate(sname, r.dir);
  if (!spath) {
    r.notes.push_back("solutions '" + sname +
                      "' not found: solution files are not shown (pass --solutions PACK)");
    return;
  }
  try {
    LoadReport lr;
    for (auto& s : read_solutions_any(*spath, &lr))
      r.solution_files[{s.task_id, s.sample}] = std::move(s.files);
  } catch (const InputError& e) {
    r.notes.push_back(std::string("solution files not shown: ") + e.what());
  }
}

}  // namespace

bool counted(const json& row) {
  auto v = verdict_from_string(row.value("verdict", ""));
  return v && counts_for_model(*v);
}

RunData load_run(const fs::path& dir, const LoadOptions& options) {
  if (!fs::is_directory(dir)) throw InputError(dir.string(), 0, "", "is not a run directory");
  const fs::path results = dir / "results.jsonl";
  if (!fs::exists(results))
    throw InputError(dir.string(), 0, "",
                     "has no results.jsonl (not a directory written by kjudge evaluate, "
                     "validate or run --out)");
  RunData r;
  r.dir = dir;
  r.run = read_json_file(dir / "run.json").value_or(json::object());
  for (auto& [line, j] : read_rows(results, r.notes)) {
    check_result_row(j, results, line);
    r.results.push_back(std::move(j));
  }

  if (auto s = read_json_file(dir / "summary.json")) {
    r.summary = std::move(*s);
  } else {
    // An interrupted run has a journal but no summary yet: score what the journal holds.
    std::vector<GradedSolution> graded;
    for (const auto& j : r.results) graded.push_back(graded_from_json(j));
    SummaryOptions so;
    if (r.run.contains("ks") && r.run["ks"].is_array()) so.ks = r.run["ks"].get<std::vector<int>>();
    r.summary = summarize(graded, so);
    r.summary_recomputed = true;
    r.notes.push_back("summary.json is missing (an unfinished run): scored from results.jsonl");
  }

  const fs::path perf = dir / "perf.jsonl";
  if (fs::exists(perf))
    for (auto& [line, j] : read_rows(perf, r.notes)) {
      check_key_fields(j, perf, line);
      SolutionKey key{j["task_id"].get<std::string>(), j["sample"].get<int>()};
      r.perf[key] = std::move(j);
    }
  r.perf_conditions = read_json_file(dir / "perf-conditions.json").value_or(json());

  load_inputs(r, options);
  return r;
}

}  // namespace kjudge::report
