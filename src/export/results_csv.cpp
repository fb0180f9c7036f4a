#include "export/results_csv.h"

#include <fmt/format.h>

#include "export/csv.h"

namespace kjudge::exports {
namespace {

using nlohmann::json;

// A number as its shortest exact decimal; "" where the value is absent or not a number, so a
// reader sees a missing value (NaN in pandas) rather than a zero.
std::string number(const json& j, const char* key) {
  if (!j.is_object()) return "";
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return "";
  return it->is_number_integer() ? fmt::format("{}", it->get<long long>())
                                 : fmt::format("{}", it->get<double>());
}

std::string text(const json& j, const char* key) {
  if (!j.is_object()) return "";
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

// A step's seconds when it ran; "" when it did not (the test of a build error).
std::string step_seconds(const json& row, const char* step) {
  const auto it = row.find(step);
  if (it == row.end() || !it->is_object() || !it->value("ran", false)) return "";
  return number(*it, "seconds");
}

}  // namespace

std::string results_csv(const report::RunData& run) {
  const bool perf = !run.perf.empty() || std::filesystem::exists(run.dir / "perf.jsonl");
  std::vector<std::string> header = {"task_id",     "sample",        "group",
                                     "difficulty",  "verdict",       "passed",
                                     "skip_reason", "build_seconds", "test_seconds"};
  if (perf)
    for (const char* h : {"speedup", "speedup_low", "speedup_high", "not_timed"})
      header.push_back(h);
  header.push_back("detail");
  std::string out = csv::record(header);
  for (const json& row : run.results) {
    std::vector<std::string> f = {
        text(row, "task_id"),     number(row, "sample"),
        text(row, "group"),       text(row, "difficulty"),
        text(row, "verdict"),     row.value("verdict", "") == "pass" ? "true" : "false",
        text(row, "skip_reason"), step_seconds(row, "build"),
        step_seconds(row, "test")};
    if (perf) {
      const auto p = run.perf.find({row["task_id"].get<std::string>(), row["sample"].get<int>()});
      const json none;
      const json& prow = p == run.perf.end() ? none : p->second;
      const json& s = prow.is_object() && prow.contains("speedup") ? prow["speedup"] : none;
      f.push_back(number(s, "estimate"));
      f.push_back(number(s, "low"));
      f.push_back(number(s, "high"));
      f.push_back(text(prow, "not_timed"));
    }
    f.push_back(text(row, "detail"));
    out += csv::record(f);
  }
  return out;
}

}  // namespace kjudge::exports
