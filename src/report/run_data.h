#pragma once
// A run directory as the report sees it: what `kjudge evaluate|validate|run --out DIR` wrote
// (run.json, summary.json, results.jsonl, perf.jsonl, perf-conditions.json), plus the
// problems and solutions it judged where they can still be found, for the drill-down.
// Read-only: the report never writes into a run directory.
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/problem.h"

namespace kjudge::report {

using SolutionKey = std::pair<std::string, int>;  // (task_id, sample)

struct RunData {
  std::filesystem::path dir;
  nlohmann::json run;      // run.json; an empty object when absent
  nlohmann::json summary;  // summary.json, or computed from results.jsonl when absent
  bool summary_recomputed = false;
  std::vector<nlohmann::json> results;         // results.jsonl, in file order
  std::map<SolutionKey, nlohmann::json> perf;  // perf.jsonl, the last line per solution
  nlohmann::json perf_conditions;              // perf-conditions.json; null when absent
  std::map<std::string, Problem> problems;     // by task_id; empty when not found
  std::map<SolutionKey, std::vector<SourceFile>> solution_files;
  std::vector<std::string> notes;  // what could not be read, for the reader of the report
};

struct LoadOptions {
  // Override where the judged problems and solutions are read from (run.json names them as
  // they were given to the judge, which may be relative to another directory).
  std::string problems;
  std::string solutions;
};

// Throws InputError (file, line) for a missing directory, a missing or malformed
// results.jsonl line (a torn last line, left by a kill, is skipped with a note), malformed
// run.json / summary.json / perf.jsonl, or a schema_version newer than this kjudge reads.
RunData load_run(const std::filesystem::path& dir, const LoadOptions& options = {});

// Whether a row's verdict counts for the model (not skipped, not judge_error).
bool counted(const nlohmann::json& row);

}  // namespace kjudge::report
