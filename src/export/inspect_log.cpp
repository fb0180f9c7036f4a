#include "export/inspect_log.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <map>
#include <optional>
#include <set>

#include "core/sha256.h"
#include "core/time_stamp.h"
#include "export/inspect_sample.h"

namespace kjudge::exports {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using nlohmann::ordered_json;

// Inspect's own log version (EvalLog.version).
constexpr int kInspectLogVersion = 2;

std::string inspect_time(std::time_t t) { return format_time(t, "%Y-%m-%dT%H:%M:%S+00:00", true); }

// run.json's started_at ("2026-11-23T01:49:07Z"); runs without one: when results.jsonl was
// last written.
std::time_t started(const report::RunData& r) {
  int y, mo, d, h, mi, s;
  const std::string at = r.run.value("started_at", "");
  if (std::sscanf(at.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &y, &mo, &d, &h, &mi, &s) == 6) {
    std::tm tm{};
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = s;
    return timegm(&tm);
  }
  std::error_code ec;
  const auto w = fs::last_write_time(r.dir / "results.jsonl", ec);
  if (ec) return std::time(nullptr);
  return std::chrono::system_clock::to_time_t(std::chrono::file_clock::to_sys(w));
}

// "runs/2025-1-problems.tar.gz" -> "2025-1-problems".
std::string stem_of(const std::string& path) {
  std::string name = fs::path(path).filename().string();
  if (name.empty()) name = fs::path(path).parent_path().filename().string();
  for (const char* ext : {".tar.gz", ".tgz", ".jsonl", ".json"})
    if (name.size() > std::string(ext).size() && name.ends_with(ext))
      return name.substr(0, name.size() - std::string(ext).size());
  return name;
}

// A task name for Inspect's file names, TIMESTAMP_TASK_ID.json: no "_", no path separator.
std::string task_name(const report::RunData& r) {
  std::string t = stem_of(r.run.value("problems", ""));
  if (t.empty()) t = "kjudge-" + r.run.value("command", std::string("run"));
  for (char& c : t)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.') c = '-';
  return t;
}

// Where the answers came from, as Inspect's "provider/model": the model of `kjudge run`, the
// baselines of `validate`, the solutions pack of `evaluate`.
std::string model_name(const report::RunData& r) {
  if (r.summary.contains("generation") && r.summary["generation"].is_object()) {
    const json& g = r.summary["generation"];
    const std::string model = g.value("model", "");
    if (!model.empty()) return g.value("provider", std::string("openai")) + "/" + model;
  }
  const std::string command = r.run.value("command", "");
  if (command == "validate") return "kjudge/baseline";
  const std::string solutions = stem_of(r.run.value("solutions", ""));
  return solutions.empty() ? "kjudge/unknown" : "solutions/" + solutions;
}

std::string id_of(const std::string& what) { return sha256_hex(what).substr(0, 22); }

ordered_json metric(const std::string& name, double value) {
  return {{"name", name}, {"value", value}, {"params", ordered_json::object()}};
}

// The "verdict" score over the run: the pass rate of the counted solutions and pass@k as the
// run's summary has it (null entries, where a problem has fewer than k samples, left out).
ordered_json verdict_score(const report::RunData& r, int counted, int passed) {
  ordered_json metrics = ordered_json::object();
  if (counted > 0) metrics["accuracy"] = metric("accuracy", double(passed) / counted);
  if (r.summary.contains("pass_at_k") && r.summary["pass_at_k"].is_object())
    for (const auto& [k, v] : r.summary["pass_at_k"].items())
      if (v.is_number()) metrics["pass@" + k] = metric("pass@" + k, v.get<double>());
  return {{"name", "verdict"},
          {"scorer", "verdict"},
          {"scored_samples", counted},
          {"unscored_samples", static_cast<int>(r.results.size()) - counted},
          {"params", ordered_json::object()},
          {"metrics", metrics}};
}

// The "speedup" score: the summary's geometric mean and fast_p, for a --benchmark run.
std::optional<ordered_json> speedup_score(const report::RunData& r) {
  if (!r.summary.contains("performance") || !r.summary["performance"].is_object())
    return std::nullopt;
  const json& p = r.summary["performance"];
  ordered_json metrics = ordered_json::object();
  if (p.contains("geomean_speedup") && p["geomean_speedup"].is_number())
    metrics["geomean"] = metric("geomean", p["geomean_speedup"].get<double>());
  if (p.contains("fast_p") && p["fast_p"].is_object())
    for (const auto& [k, v] : p["fast_p"].items())
      if (v.is_number()) metrics["fast_" + k] = metric("fast_" + k, v.get<double>());
  const int timed = p.value("timed", 0);
  return ordered_json{{"name", "speedup"},
                      {"scorer", "speedup"},
                      {"scored_samples", timed},
                      {"unscored_samples", static_cast<int>(r.results.size()) - timed},
                      {"params", ordered_json::object()},
                      {"metrics", metrics}};
}

ordered_json scorer(const std::string& name, const std::vector<std::string>& metrics) {
  ordered_json m = ordered_json::array();
  for (const auto& n : metrics) m.push_back({{"name", n}, {"options", ordered_json::object()}});
  return {{"name", name}, {"options", ordered_json::object()}, {"metrics", m}};
}

}  // namespace

ordered_json inspect_eval_log(const report::RunData& r, const InspectOptions& o) {
  const std::time_t t0 = started(r);
  const std::string created = inspect_time(t0);
  const std::string task = task_name(r);
  const std::string model = model_name(r);
  const std::string identity = r.run.value("jobs_fingerprint", r.dir.string()) + "\n" + created;

  InspectSampleOptions so;
  so.model = model;
  so.log_bytes = o.log_bytes;
  // One sample per (task_id, sample): a journal line repeated (it should not be) keeps its last.
  std::map<std::pair<std::string, int>, std::size_t> index;
  ordered_json samples = ordered_json::array();
  std::vector<std::string> ids;
  std::set<std::string> seen_ids;
  int counted = 0, passed = 0, epochs = 1;
  for (const json& row : r.results) {
    const std::string id = row["task_id"].get<std::string>();
    const int sample = row["sample"].get<int>();
    ordered_json s = inspect_sample(r, row, so);
    auto [it, fresh] = index.emplace(std::make_pair(id, sample), samples.size());
    if (fresh) {
      samples.push_back(std::move(s));
    } else {
      samples[it->second] = std::move(s);
    }
    if (seen_ids.insert(id).second) ids.push_back(id);
    epochs = std::max(epochs, sample + 1);
  }
  for (const auto& s : samples) {
    const std::string v = s["scores"]["verdict"]["value"].get<std::string>();
    counted += v != "N";
    passed += v == "C";
  }

  ordered_json scores = ordered_json::array({verdict_score(r, counted, passed)});
  ordered_json scorers = ordered_json::array({scorer("verdict", {"accuracy"})});
  if (auto s = speedup_score(r)) {
    scores.push_back(*s);
    scorers.push_back(scorer("speedup", {"geomean"}));
  }

  const bool complete = r.summary.value("complete", false) && !r.summary_recomputed;
  const double wall = r.summary.contains("timing") && r.summary["timing"].is_object()
                          ? r.summary["timing"].value("wall_s", 0.0)
                          : 0.0;
  ordered_json dataset = {{"name", task},
                          {"location", r.run.value("problems", "")},
                          {"samples", ids.size()},
                          {"sample_ids", ids}};
  ordered_json eval = {
      {"eval_id", id_of("eval\n" + identity)},
      {"run_id", id_of("run\n" + identity)},
      {"created", created},
      {"task", task},
      {"task_id", id_of("task\n" + task + "\n" + identity)},
      {"task_version", 0},
      {"task_display_name", task},
      {"task_attribs", ordered_json::object()},
      {"task_args", ordered_json::object()},
      {"task_args_passed", ordered_json::object()},
      {"solver", "kjudge/" + r.run.value("command", std::string("evaluate"))},
      {"dataset", dataset},
      {"model", model},
      {"model_generate_config", ordered_json::object()},
      {"model_args", ordered_json::object()},
      {"config", {{"epochs", epochs}}},
      {"packages", {{"kjudge", r.run.value("kjudge_version", std::string(KJUDGE_VERSION))}}},
      {"metadata", {{"kjudge_run", r.run}, {"kjudge_summary", r.summary}}},
      {"scorers", scorers}};
  ordered_json plan = {
      {"name", "plan"},
      {"steps", ordered_json::array(
                    {{{"solver", "kjudge/" + r.run.value("command", std::string("evaluate"))},
                      {"params", ordered_json::object()}}})},
      {"config", ordered_json::object()}};
  return {{"version", kInspectLogVersion},
          {"status", complete ? "success" : "cancelled"},
          {"eval", eval},
          {"plan", plan},
          {"results",
           {{"total_samples", samples.size()},
            {"completed_samples", samples.size()},
            {"scores", scores}}},
          {"stats",
           {{"started_at", created},
            {"completed_at",
             wall > 0 ? inspect_time(t0 + static_cast<std::time_t>(wall + 0.5)) : std::string()}}},
          {"samples", samples}};
}

std::string inspect_log_file_name(const ordered_json& log) {
  std::string stamp = log["eval"]["created"].get<std::string>();
  for (char& c : stamp)
    if (c == ':') c = '-';
  return fmt::format("{}_{}_{}.json", stamp, log["eval"]["task"].get<std::string>(),
                     log["eval"]["task_id"].get<std::string>());
}

}  // namespace kjudge::exports
