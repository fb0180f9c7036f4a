#include "eval/summary.h"

#include <map>
#include <set>

#include "eval/pass_at_k.h"
#include "eval/sanitizer.h"

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

// --sanitize: each checked solution counted once (errors before inconclusive before clean), each
// tool's runs, and the solutions flagged with the first error's first line.
nlohmann::json sanitizer_json(const std::vector<GradedSolution>& graded,
                              const std::vector<std::string>& tools) {
  int checked = 0;
  std::map<std::string, int> outcomes = {{"clean", 0}, {"errors", 0}, {"inconclusive", 0}};
  nlohmann::json by_tool = nlohmann::json::object();
  for (const std::string& t : tools)
    by_tool[t] = {{"clean", 0}, {"errors", 0}, {"inconclusive", 0}};
  nlohmann::json flagged = nlohmann::json::array();
  for (const auto& g : graded) {
    if (g.sanitizer.empty()) continue;
    ++checked;
    SanitizerOutcome worst = SanitizerOutcome::clean;
    for (const SanitizerRecord& r : g.sanitizer) {
      const std::string o(to_string(r.outcome));
      by_tool[r.tool][o] = by_tool[r.tool].value(o, 0) + 1;
      if (r.outcome == SanitizerOutcome::errors) {
        worst = SanitizerOutcome::errors;
        flagged.push_back({{"task_id", g.task_id},
                           {"sample", g.sample},
                           {"tool", r.tool},
                           {"errors", r.errors},
                           {"first_error", r.report.empty() ? r.detail : r.report.front()}});
      } else if (r.outcome == SanitizerOutcome::inconclusive && worst != SanitizerOutcome::errors) {
        worst = SanitizerOutcome::inconclusive;
      }
    }
    outcomes[std::string(to_string(worst))]++;
  }
  nlohmann::json out = {{"tools", tools}, {"checked", checked}};
  for (const auto& [k, n] : outcomes) out[k] = n;
  out["by_tool"] = by_tool;
  out["flagged"] = flagged;
  return out;
}

// --repeat: the solutions whose runs gave different verdicts, with every run's verdict.
nlohmann::json repeat_json(const std::vector<GradedSolution>& graded, int runs) {
  int repeated = 0;
  nlohmann::json flaky = nlohmann::json::array();
  for (const auto& g : graded) {
    if (g.repeats.empty()) continue;
    ++repeated;
    if (!g.flaky()) continue;
    nlohmann::json verdicts = nlohmann::json::array();
    for (const TestRun& r : g.repeats) verdicts.push_back(std::string(to_string(r.verdict)));
    flaky.push_back({{"task_id", g.task_id},
                     {"sample", g.sample},
                     {"verdict", std::string(to_string(g.verdict))},
                     {"runs", verdicts}});
  }
  return {
      {"runs", runs}, {"repeated", repeated}, {"flaky", flaky.size()}, {"flaky_solutions", flaky}};
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
  bool sanitized = !opt.sanitize.empty(), repeated = opt.repeat > 1;
  for (const auto& g : graded) {
    sanitized |= !g.sanitizer.empty();
    repeated |= !g.repeats.empty();
  }
  if (sanitized) out["sanitizer"] = sanitizer_json(graded, opt.sanitize);
  if (repeated) out["repeat"] = repeat_json(graded, opt.repeat);
  return out;
}

}  // namespace kjudge
