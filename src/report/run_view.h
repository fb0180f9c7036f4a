#pragma once
// What a run's report shows, worked out once for both renderers (HTML and Markdown): pass@k
// tables, verdict counts in words, the speedup distribution, cheat flags, the run's conditions
// and the per-problem rows of the drill-down.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "report/run_data.h"

namespace kjudge::report {

// A verdict in words ("build error", "test timeout") and its class: pass, fail, skip or error.
std::string verdict_words(const std::string& verdict);
std::string verdict_kind(const std::string& verdict);

struct PassRow {
  std::string name;
  int problems = 0, evaluated = 0, solutions = 0;
  std::vector<std::optional<double>> pass_at_k;  // parallel to PassTable::ks; null: too few samples
};
struct PassTable {
  std::vector<int> ks;
  PassRow all;
  std::vector<PassRow> groups, difficulties;
};
PassTable pass_table(const nlohmann::json& summary);

// Verdicts of results.jsonl, in the judge's order, with their counts (zeros left out).
std::vector<std::pair<std::string, int>> verdict_counts(const RunData& r);
std::vector<std::pair<std::string, int>> skip_reasons(const RunData& r);

struct SpeedupBin {
  std::string label;
  double low, high;  // [low, high)
  int count = 0;
};
// Fixed bins around 1 (no faster than the baseline), so histograms of two runs line up.
std::vector<SpeedupBin> speedup_histogram(const std::vector<double>& estimates);
// The speedup estimates of perf.jsonl's timed lines.
std::vector<double> speedup_estimates(const RunData& r);

struct CheatFlag {
  std::string task_id;
  int sample = 0;
  std::string flag;
};
// `cheat_flags` of results.jsonl and perf.jsonl lines (strings, or objects with check/detail,
// and file/line when the static pass found them: "timer: reads a clock … (solution.cu:12)").
std::vector<CheatFlag> cheat_flags(const RunData& r);

// The run's conditions as (name, value) lines: GPU, driver, CUDA, judge, options, sandbox …
std::vector<std::pair<std::string, std::string>> conditions(const RunData& r);
// Warnings and notes of the run and of reading it.
std::vector<std::string> warnings(const RunData& r);

struct ProblemRow {
  std::string task_id, group, difficulty;
  std::vector<const nlohmann::json*> samples;  // results.jsonl lines, by sample
  int passed = 0, counted = 0;
};
std::vector<ProblemRow> problem_rows(const RunData& r);

// "12.3 KiB" for people.
std::string human_bytes(double bytes);
// A fraction as "57.1%"; "n/a" for null.
std::string percent(const std::optional<double>& v);

}  // namespace kjudge::report
