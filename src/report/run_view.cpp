#include "report/run_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "eval/verdict.h"

namespace kjudge::report {
using nlohmann::json;

namespace {

// Every verdict, in the judge's order (eval/verdict.h), with its words.
const std::vector<std::pair<std::string, std::string>>& verdict_table() {
  static const std::vector<std::pair<std::string, std::string>> t = {
      {"pass", "pass"},
      {"build_error", "build error"},
      {"build_timeout", "build timeout"},
      {"test_fail", "test fail"},
      {"test_timeout", "test timeout"},
      {"crash", "crash (signal)"},
      {"sanitizer_error", "compute-sanitizer error"},
      {"source_reference_missing", "required API not used"},
      {"invalid_solution", "invalid solution"},
      {"skipped", "skipped"},
      {"judge_error", "judge error"},
  };
  return t;
}

PassRow pass_row(const std::string& name, const json& slice, const std::vector<int>& ks) {
  PassRow row;
  row.name = name;
  row.problems = slice.value("problems", 0);
  row.evaluated = slice.value("evaluated_problems", 0);
  row.solutions = slice.value("solutions", 0);
  for (int k : ks) {
    const json& v =
        slice.contains("pass_at_k") ? slice["pass_at_k"].value(std::to_string(k), json()) : json();
    row.pass_at_k.push_back(v.is_number() ? std::optional<double>(v.get<double>()) : std::nullopt);
  }
  return row;
}

std::string str_of(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "";
  return v.dump();
}

std::string gpu_conditions_line(const json& c) {
  std::vector<std::string> parts;
  if (c.contains("start") && c["start"].is_object()) {
    const json& s = c["start"];
    parts.push_back(fmt::format(
        "{}, {} at start: SM {} MHz (max {}), {} °C, {} W of {} W", s.value("name", "?"),
        s.value("pstate", "?"), s.value("sm_clock_mhz", 0.0), s.value("max_sm_clock_mhz", 0.0),
        s.value("temperature_c", 0.0), s.value("power_w", 0.0), s.value("power_limit_w", 0.0)));
  }
  if (c.contains("during") && c["during"].is_object()) {
    const json& d = c["during"];
    parts.push_back(fmt::format("while timing: SM {}–{} MHz busy, up to {} °C and {} W",
                                d.value("min_busy_sm_clock_mhz", 0.0),
                                d.value("max_busy_sm_clock_mhz", 0.0),
                                d.value("max_temperature_c", 0.0), d.value("max_power_w", 0.0)));
  }
  std::vector<std::string> slow;
  for (const char* phase : {"start", "during", "end"})
    if (c.contains(phase) && c[phase].is_object() && c[phase].contains("slowdowns"))
      for (const auto& s : c[phase]["slowdowns"])
        if (std::find(slow.begin(), slow.end(), str_of(s)) == slow.end()) slow.push_back(str_of(s));
  parts.push_back(slow.empty() ? "no slowdowns"
                               : "slowdowns: " + fmt::format("{}", fmt::join(slow, ", ")));
  return fmt::format("{}", fmt::join(parts, "; "));
}

}  // namespace

std::string verdict_words(const std::string& verdict) {
  for (const auto& [v, words] : verdict_table())
    if (v == verdict) return words;
  return verdict;
}

std::string verdict_kind(const std::string& verdict) {
  if (verdict == "pass") return "pass";
  if (verdict == "skipped") return "skip";
  if (verdict == "judge_error") return "error";
  return "fail";
}

PassTable pass_table(const json& summary) {
  PassTable t;
  if (summary.contains("ks") && summary["ks"].is_array())
    t.ks = summary["ks"].get<std::vector<int>>();
  if (t.ks.empty() && summary.contains("pass_at_k"))
    for (auto& [k, v] : summary["pass_at_k"].items()) t.ks.push_back(std::stoi(k));
  t.all = pass_row("all", summary, t.ks);
  for (const char* key : {"groups", "difficulties"})
    if (summary.contains(key) && summary[key].is_object())
      for (auto& [name, slice] : summary[key].items())
        (std::string(key) == "groups" ? t.groups : t.difficulties)
            .push_back(pass_row(name, slice, t.ks));
  return t;
}

std::vector<std::pair<std::string, int>> verdict_counts(const RunData& r) {
  std::map<std::string, int> n;
  for (const auto& row : r.results) n[row.value("verdict", "")]++;
  std::vector<std::pair<std::string, int>> out;
  for (const auto& [v, words] : verdict_table())
    if (n.count(v)) out.emplace_back(v, n[v]);
  return out;
}

std::vector<std::pair<std::string, int>> skip_reasons(const RunData& r) {
  std::map<std::string, int> n;
  for (const auto& row : r.results)
    if (row.value("verdict", "") == "skipped") n[row.value("skip_reason", "(no reason given)")]++;
  return {n.begin(), n.end()};
}

std::vector<SpeedupBin> speedup_histogram(const std::vector<double>& estimates) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<SpeedupBin> bins = {{"< 0.5×", 0, 0.5},
                                  {"0.5–0.8×", 0.5, 0.8},
                                  {"0.8–0.95×", 0.8, 0.95},
                                  {"0.95–1.05×", 0.95, 1.05},
                                  {"1.05–1.25×", 1.05, 1.25},
                                  {"1.25–1.5×", 1.25, 1.5},
                                  {"1.5–2×", 1.5, 2},
                                  {"2–4×", 2, 4},
                                  {"≥ 4×", 4, inf}};
  for (double e : estimates)
    for (auto& b : bins)
      if (e >= b.low && e < b.high) {
        b.count++;
        break;
      }
  return bins;
}

std::vector<double> speedup_estimates(const RunData& r) {
  std::vector<double> out;
  for (const auto& [key, j] : r.perf)
    if (j.contains("speedup") && j["speedup"].is_object() && j["speedup"].contains("estimate"))
      out.push_back(j["speedup"]["estimate"].get<double>());
  return out;
}

std::vector<CheatFlag> cheat_flags(const RunData& r) {
  std::vector<CheatFlag> out;
  auto add = [&](const json& row) {
    if (!row.contains("cheat_flags") || !row["cheat_flags"].is_array()) return;
    for (const auto& f : row["cheat_flags"]) {
      std::string text =
          f.is_object() ? f.value("check", "") + ": " + f.value("detail", "") : str_of(f);
      // The static pass says where: a reviewer goes straight to the line.
      if (f.is_object() && f.contains("file") && f["file"].is_string() &&
          !f["file"].get<std::string>().empty())
        text += " (" + f["file"].get<std::string>() +
                (f.contains("line") && f["line"].is_number_integer()
                     ? ":" + std::to_string(f["line"].get<int>())
                     : "") +
                ")";
      out.push_back({row["task_id"].get<std::string>(), row["sample"].get<int>(), text});
    }
  };
  for (const auto& row : r.results) add(row);
  for (const auto& [key, row] : r.perf) add(row);
  return out;
}

std::vector<std::pair<std::string, std::string>> conditions(const RunData& r) {
  std::vector<std::pair<std::string, std::string>> out;
  const json& run = r.run;
  const json& s = r.summary;
  auto add = [&](const std::string& k, const std::string& v) {
    if (!v.empty()) out.emplace_back(k, v);
  };
  add("command", run.contains("command") ? "kjudge " + str_of(run["command"]) : "");
  add("problems", run.value("problems", ""));
  add("solutions", run.value("solutions", ""));
  if (s.contains("generation") && s["generation"].is_object())
    add("model",
        s["generation"].value("model", "") + " (" + s["generation"].value("provider", "") + ")");
  add("judge", run.contains("kjudge_version") ? "kjudge " + str_of(run["kjudge_version"]) : "");
  add("started", run.value("started_at", ""));
  const json machine = run.value("machine", json::object());
  std::vector<std::string> gpus;
  for (const auto& g : machine.value("gpus", json::array()))
    gpus.push_back(fmt::format("{}: {} (compute capability {})", g.value("index", 0),
                               g.value("name", "?"), g.value("compute_capability", "?")));
  add("GPU",
      gpus.empty() ? (machine.empty() ? "" : "none") : fmt::format("{}", fmt::join(gpus, "; ")));
  const json perf = s.value("performance", json::object());
  std::string driver = machine.value("driver", "");
  if (driver.empty() && perf.is_object()) driver = perf.value("driver", "");
  add("driver", driver);
  std::string cuda = machine.value("cuda_version", "");
  if (!cuda.empty() && !machine.value("nvcc", "").empty())
    cuda += " (" + str_of(machine["nvcc"]) + ")";
  add("CUDA", cuda);
  if (machine.contains("cpus")) add("CPUs", str_of(machine["cpus"]));
  std::string sandbox = s.value("sandbox", "");
  if (!s.value("sandbox_limits", "").empty()) sandbox += "; " + str_of(s["sandbox_limits"]);
  add("sandbox", sandbox);
  if (run.contains("options") && run["options"].is_object()) {
    std::vector<std::string> opts;
    for (auto& [k, v] : run["options"].items()) {
      if (k == "sandbox" || k == "sandbox_limits") continue;  // the sandbox line says them
      opts.push_back(k + "=" +
                     (k == "memory_limit_bytes" && v.is_number() && v.get<double>() > 0
                          ? human_bytes(v.get<double>())
                          : str_of(v)));
    }
    add("options", fmt::format("{}", fmt::join(opts, ", ")));
  }
  if (s.contains("timing") && s["timing"].is_object()) {
    const json& t = s["timing"];
    add("time",
        fmt::format("wall {:.1f} s; build {:.1f} s and test {:.1f} s summed; {} builds "
                    "from the cache; {} quiet retries",
                    t.value("wall_s", 0.0), t.value("build_s_sum", 0.0), t.value("test_s_sum", 0.0),
                    t.value("cached_builds", 0), t.value("quiet_retries", 0)));
  }
  if (s.contains("complete"))
    add("complete", s.value("complete", false) ? "yes" : "no (--resume finishes it)");
  if (perf.is_object() && !perf.empty())
    add("benchmark", fmt::format("{} timed runs and {} warm-ups per side, {:.0f}% intervals; "
                                 "profiler {}",
                                 perf.value("runs", 0), perf.value("warmups", 0),
                                 100 * perf.value("confidence", 0.95),
                                 perf.value("profiler", std::string()).empty()
                                     ? std::string("none")
                                     : perf.value("profiler", std::string())));
  json cond =
      r.perf_conditions.is_object() ? r.perf_conditions.value("conditions", json()) : json();
  if (cond.is_null() && perf.is_object()) cond = perf.value("conditions", json());
  if (cond.is_object())
    for (auto& [gpu, c] : cond.items())  // null: a GPU (or -1, none) nvidia-smi could not read
      if (c.is_object()) add("GPU " + gpu + " while timed", gpu_conditions_line(c));
  for (const auto& b : s.value("broken_gpus", json::array()))
    add("GPU " + str_of(b.value("gpu", json())) + " taken out", b.value("reason", ""));
  return out;
}

std::vector<std::string> warnings(const RunData& r) {
  std::vector<std::string> out;
  for (const char* key : {"warnings", "notes"})
    for (const auto& w : r.summary.value(key, json::array())) out.push_back(str_of(w));
  if (r.summary.value("load_errors", 0) > 0)
    out.push_back(fmt::format("{} input lines could not be read by the judge",
                              r.summary.value("load_errors", 0)));
  out.insert(out.end(), r.notes.begin(), r.notes.end());
  return out;
}

std::vector<ProblemRow> problem_rows(const RunData& r) {
  std::map<std::string, ProblemRow> by_task;
  for (const auto& row : r.results) {
    ProblemRow& p = by_task[row["task_id"].get<std::string>()];
    p.task_id = row["task_id"].get<std::string>();
    p.group = row.value("group", "");
    p.difficulty = row.value("difficulty", "");
    p.samples.push_back(&row);
    if (counted(row)) {
      p.counted++;
      p.passed += row.value("verdict", "") == "pass";
    }
  }
  std::vector<ProblemRow> out;
  for (auto& [id, p] : by_task) {
    std::sort(p.samples.begin(), p.samples.end(), [](const json* a, const json* b) {
      return (*a)["sample"].get<int>() < (*b)["sample"].get<int>();
    });
    out.push_back(std::move(p));
  }
  return out;
}

std::string human_bytes(double bytes) {
  if (bytes < 1024) return fmt::format("{:.0f} B", bytes);
  if (bytes < 1024 * 1024) return fmt::format("{:.1f} KiB", bytes / 1024);
  if (bytes < 1024.0 * 1024 * 1024) return fmt::format("{:.1f} MiB", bytes / (1024 * 1024));
  return fmt::format("{:.2f} GiB", bytes / (1024.0 * 1024 * 1024));
}

std::string percent(const std::optional<double>& v) {
  return v ? fmt::format("{:.1f}%", 100 * *v) : std::string("n/a");
}

}  // namespace kjudge::report
