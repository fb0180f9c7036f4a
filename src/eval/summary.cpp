#include "eval/summary.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "eval/pass_at_k.h"

namespace kjudge {
namespace {

struct Counts {
  int n = 0;  // samples that count for the model
  int c = 0;  // of which passed
};

// pass@k over problems; null when some problem has fewer than k counted samples, as in
// ComputeEval (an estimate from fewer samples than k would be biased).
nlohmann::json pass_at_k_json(const std::map<std::string, Counts>& per_problem,
                              const std::vector<int>& ks) {
  nlohmann::json out = nlohmann::json::object();
  for (int k : ks) {
    double sum = 0;
    int problems = 0;
    bool enough = true;
    for (const auto& [task, cnt] : per_problem) {
      if (cnt.n == 0) continue;
      if (cnt.n < k) {
        enough = false;
        break;
      }
      sum += pass_at_k(cnt.n, cnt.c, k);
      ++problems;
    }
    out[std::to_string(k)] =
        (enough && problems > 0) ? nlohmann::json(sum / problems) : nlohmann::json(nullptr);
  }
  return out;
}

nlohmann::json slice(const std::vector<const GradedSolution*>& items, const std::vector<int>& ks) {
  std::map<std::string, Counts> per_problem;
  std::map<std::string, int> verdicts;
  std::set<std::string> problems;
  for (const auto* g : items) {
    problems.insert(g->task_id);
    verdicts[std::string(to_string(g->verdict))]++;
    Counts& c = per_problem[g->task_id];
    if (counts_for_model(g->verdict)) {
      c.n++;
      if (g->verdict == Verdict::pass) c.c++;
    }
  }
  int evaluated = 0;
  for (const auto& [t, c] : per_problem) evaluated += c.n > 0;
  return {{"problems", problems.size()},
          {"evaluated_problems", evaluated},
          {"solutions", items.size()},
          {"verdicts", verdicts},
          {"pass_at_k", pass_at_k_json(per_problem, ks)}};
}

}  // namespace

nlohmann::json summarize(const std::vector<GradedSolution>& graded, const SummaryOptions& opt) {
  std::vector<const GradedSolution*> all;
  std::map<std::string, std::vector<const GradedSolution*>> by_group, by_difficulty;
  std::map<std::string, int> skipped;
  double build_s = 0, test_s = 0;
  int cached = 0, quiet_retries = 0;
  nlohmann::json failures = nlohmann::json::array();
  nlohmann::json judge_errors = nlohmann::json::array();
  for (const auto& g : graded) {
    all.push_back(&g);
    by_group[g.group.empty() ? "(none)" : g.group].push_back(&g);
    by_difficulty[g.difficulty.empty() ? "(none)" : g.difficulty].push_back(&g);
    if (g.verdict == Verdict::skipped) skipped[g.skip_code]++;
    build_s += g.build.wall_s;
    test_s += g.test.wall_s;
    cached += g.build.cached;
    quiet_retries += g.build.quiet_retry || g.test.quiet_retry;
    nlohmann::json brief = {{"task_id", g.task_id},
                            {"sample", g.sample},
                            {"verdict", std::string(to_string(g.verdict))},
                            {"detail", g.detail}};
    if (g.verdict == Verdict::judge_error)
      judge_errors.push_back(brief);
    else if (g.verdict != Verdict::pass && g.verdict != Verdict::skipped)
      failures.push_back(brief);
  }
  nlohmann::json out = slice(all, opt.ks);
  out["schema_version"] = 1;
  out["kind"] = "kjudge-summary";
  out["ks"] = opt.ks;
  out["skipped_reasons"] = skipped;
  nlohmann::json groups = nlohmann::json::object(), diffs = nlohmann::json::object();
  for (const auto& [name, items] : by_group) groups[name] = slice(items, opt.ks);
  for (const auto& [name, items] : by_difficulty) diffs[name] = slice(items, opt.ks);
  out["groups"] = groups;
  out["difficulties"] = diffs;
  out["timing"] = {{"wall_s", opt.wall_s},
                   {"build_s_sum", build_s},
                   {"test_s_sum", test_s},
                   {"cached_builds", cached},
                   {"quiet_retries", quiet_retries}};
  out["failures"] = failures;
  out["judge_errors"] = judge_errors;
  return out;
}

std::string summary_table(const nlohmann::json& s) {
  std::string out;
  out += fmt::format(
      "{} solutions of {} problems ({} evaluated), wall {:.1f} s, build {:.1f} s, "
      "test {:.1f} s summed, {} builds cached\n",
      s["solutions"].get<int>(), s["problems"].get<int>(), s["evaluated_problems"].get<int>(),
      s["timing"]["wall_s"].get<double>(), s["timing"]["build_s_sum"].get<double>(),
      s["timing"]["test_s_sum"].get<double>(), s["timing"]["cached_builds"].get<int>());
  out += "verdicts:";
  for (auto& [v, n] : s["verdicts"].items()) out += fmt::format("  {} {}", v, n.get<int>());
  out += "\n";
  if (!s["skipped_reasons"].empty()) {
    out += "skipped:";
    for (auto& [v, n] : s["skipped_reasons"].items())
      out += fmt::format("  {} {}", v, n.get<int>());
    out += "\n";
  }
  auto row = [&out](const std::string& name, const nlohmann::json& slice) {
    out += fmt::format("  {:<16} {:>4} problems", name, slice["evaluated_problems"].get<int>());
    for (auto& [k, v] : slice["pass_at_k"].items())
      out += v.is_null() ? fmt::format("   pass@{} n/a", k)
                         : fmt::format("   pass@{} {:6.2f}%", k, 100.0 * v.get<double>());
    out += "\n";
  };
  out += "pass@k:\n";
  row("all", s);
  for (auto& [g, slice] : s["groups"].items()) row(g, slice);
  out += "by difficulty:\n";
  for (auto& [d, slice] : s["difficulties"].items()) row(d, slice);
  if (s.contains("performance") && s["performance"].is_object()) {
    auto perf_row = [&out](const std::string& name, const nlohmann::json& p) {
      out += fmt::format("  {:<16} {:>4} timed of {:<4}", name, p.value("timed", 0),
                         p.value("solutions", 0));
      const auto& g = p["geomean_speedup"];
      out += g.is_number() ? fmt::format("  geomean speedup {:.3f}", g.get<double>())
                           : std::string("  geomean speedup n/a");
      for (const char* k : {"1", "1.5", "2"}) {
        const auto& f = p["fast_p"][k];
        const auto& c = p["fast_p_confident"][k];
        if (f.is_number() && c.is_number())
          out += fmt::format("  fast_{} {:.1f}% ({:.1f}% sure)", k, 100 * f.get<double>(),
                             100 * c.get<double>());
      }
      out += "\n";
    };
    out += "performance (speedup over the baseline):\n";
    perf_row("all", s["performance"]);
    for (auto& [g, slice] : s["performance"]["groups"].items()) perf_row(g, slice);
    for (auto& [why, n] : s["performance"]["not_timed"].items())
      out += fmt::format("  not timed: {} x {}\n", n.get<int>(), why);
  }
  return out;
}

}  // namespace kjudge
