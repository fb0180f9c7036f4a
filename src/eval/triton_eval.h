#pragma once
// Judging Triton candidates: every operator's reference and every candidate run once in test
// mode (in parallel), outputs compared, and, with speedup on, reference and correct candidates
// timed one at a time. Writes nothing itself: the command (cmd_triton.cpp) writes the run dir.
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/triton_operator.h"
#include "eval/triton_compare.h"
#include "eval/triton_metrics.h"
#include "eval/triton_run.h"

namespace kjudge {

struct TritonJob {
  const TritonOperator* op = nullptr;
  std::string code;
  int sample = 0;
  std::string origin;  // "self", or "FILE:LINE"
};

struct TritonEvalOptions {
  TritonRunner runner;
  std::uint64_t seed = 20251122;
  bool speedup = false;
  TritonTiming timing;
  int workers = 4;                 // test-mode runs at once (timing runs are always alone)
  std::filesystem::path work_dir;  // one workspace per run below it
  bool keep_workspaces = false;
  bool require_torch = true;                         // false only in the judge's CPU tests
  std::function<void(const std::string&)> progress;  // one line per finished run
};

struct TritonJobResult {
  TritonJob job;
  TritonGraded graded;
  std::string detail;
  TritonRunOutcome run;                   // the candidate's test-mode run
  std::optional<OutputsVerdict> outputs;  // both ran
  std::optional<TritonSpeedup> speedup;
  std::string speedup_note;  // why there is none, when speedup was asked for
  std::vector<TritonCallSite> reference_sites, candidate_sites;
};

struct TritonEvalResult {
  std::vector<TritonJobResult> results;                // in the jobs' order
  std::map<std::string, TritonRunOutcome> references;  // "G/add_example" -> its test-mode run
  TritonScores scores;
};

TritonEvalResult evaluate_triton(const std::vector<TritonJob>& jobs, const TritonEvalOptions& opt);

// The JSON forms written to results.jsonl and references.jsonl (docs/schemas).
nlohmann::ordered_json triton_result_json(const TritonJobResult& r);
nlohmann::ordered_json triton_reference_json(const TritonOperator& op, const TritonRunOutcome& ref);
// summary.json: `run_info` (what was judged and how) first, then the scores.
nlohmann::ordered_json triton_summary_json(const TritonEvalResult& res,
                                           const nlohmann::ordered_json& run_info);

}  // namespace kjudge
