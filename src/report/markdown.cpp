// The Markdown summaries (one run, two runs compared): the numbers without the drill-down, for
// a pull request, an issue or a terminal.
#include <fmt/format.h>

#include "report/render.h"
#include "report/run_view.h"

namespace kjudge::report {
using nlohmann::json;

namespace {

// One table cell: no line breaks or pipes, and no HTML (Markdown viewers render raw HTML).
std::string cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\n' || c == '\r')
      out += ' ';
    else if (c == '|')
      out += "\\|";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else
      out += c;
  }
  return out;
}

std::string pass_table_md(const PassTable& t, const std::vector<PassRow>& rows,
                          const std::string& first) {
  std::string out = "| " + first + " | problems | solutions |";
  for (int k : t.ks) out += fmt::format(" pass@{} |", k);
  out += "\n| --- | ---: | ---: |";
  for (std::size_t i = 0; i < t.ks.size(); ++i) out += " ---: |";
  out += "\n";
  for (const auto& r : rows) {
    out += fmt::format("| {} | {} | {} |", cell(r.name), r.evaluated, r.solutions);
    for (const auto& v : r.pass_at_k) out += " " + percent(v) + " |";
    out += "\n";
  }
  return out;
}

}  // namespace

std::string markdown_report(const RunData& r) {
  const PassTable t = pass_table(r.summary);
  std::string out = "# kjudge report: " + cell(run_label(r)) + "\n\n";
  std::vector<std::string> head;
  for (std::size_t i = 0; i < t.ks.size(); ++i)
    head.push_back(fmt::format("**pass@{} {}**", t.ks[i], percent(t.all.pass_at_k[i])));
  out += fmt::format("{} · {} solutions of {} problems ({} evaluated)\n\n", fmt::join(head, " · "),
                     t.all.solutions, t.all.problems, t.all.evaluated);
  for (const auto& w : warnings(r)) out += "> ⚠ " + cell(w) + "\n";
  if (!warnings(r).empty()) out += "\n";

  out += "## pass@k\n\n" + pass_table_md(t, {t.all}, "") + "\n### By group\n\n" +
         pass_table_md(t, t.groups, "group") + "\n### By difficulty\n\n" +
         pass_table_md(t, t.difficulties, "difficulty") + "\n";

  out += "## Verdicts\n\n| verdict | solutions |\n| --- | ---: |\n";
  for (const auto& [v, n] : verdict_counts(r))
    out += fmt::format("| {} | {} |\n", verdict_words(v), n);
  if (auto skips = skip_reasons(r); !skips.empty()) {
    out += "\n| skipped because | solutions |\n| --- | ---: |\n";
    for (const auto& [why, n] : skips) out += fmt::format("| {} | {} |\n", cell(why), n);
  }
  std::string fails;
  for (const auto& row : r.results) {
    const std::string v = row.value("verdict", "");
    if (v == "pass" || v == "skipped") continue;
    fails += fmt::format("| {} | {} | {} | {} |\n", cell(row["task_id"].get<std::string>()),
                         row["sample"].get<int>(), verdict_words(v), cell(row.value("detail", "")));
  }
  if (!fails.empty())
    out += "\n### Failures\n\n| problem | sample | verdict | why |\n| --- | ---: | --- | --- |\n" +
           fails;
  out += "\n";

  const json perf = r.summary.value("performance", json());
  if (perf.is_object()) {
    const json& g = perf.value("geomean_speedup", json());
    out += fmt::format("## Performance\n\n{} of {} solutions timed; geometric-mean speedup {}\n\n",
                       perf.value("timed", 0), perf.value("solutions", 0),
                       g.is_number() ? fmt::format("{:.3f}×", g.get<double>()) : "n/a");
    out += "| p | fast_p | sure (interval above p) |\n| --- | ---: | ---: |\n";
    for (const char* p : {"1", "1.5", "2"}) {
      auto val = [&](const char* key) {
        const json& v = perf.contains(key) ? perf[key].value(p, json()) : json();
        return v.is_number() ? percent(v.get<double>()) : std::string("n/a");
      };
      out += fmt::format("| {} | {} | {} |\n", p, val("fast_p"), val("fast_p_confident"));
    }
    if (auto est = speedup_estimates(r); !est.empty()) {
      out += "\n| speedup | solutions |\n| --- | ---: |\n";
      for (const auto& b : speedup_histogram(est))
        out += fmt::format("| {} | {} |\n", b.label, b.count);
    }
    if (perf.contains("not_timed") && !perf["not_timed"].empty()) {
      out += "\n| not timed because | solutions |\n| --- | ---: |\n";
      for (auto& [why, n] : perf["not_timed"].items())
        out += fmt::format("| {} | {} |\n", cell(why), n.dump());
    }
    out += "\n";
  }

  if (auto flags = cheat_flags(r); !flags.empty()) {
    out += "## Cheat flags\n\n| problem | sample | flag |\n| --- | ---: | --- |\n";
    for (const auto& f : flags)
      out += fmt::format("| {} | {} | {} |\n", cell(f.task_id), f.sample, cell(f.flag));
    out += "\n";
  }

  out +=
      "## Problems\n\n| problem | group | difficulty | passed | verdicts |\n| --- | --- | --- | "
      "---: | --- |\n";
  for (const auto& p : problem_rows(r)) {
    std::vector<std::string> vs;
    for (const json* s : p.samples) vs.push_back(verdict_words((*s)["verdict"].get<std::string>()));
    out += fmt::format("| {} | {} | {} | {}/{} | {} |\n", cell(p.task_id), cell(p.group),
                       cell(p.difficulty), p.passed, p.counted, fmt::join(vs, ", "));
  }

  out += "\n## Conditions\n\n| | |\n| --- | --- |\n";
  for (const auto& [k, v] : conditions(r)) out += "| " + cell(k) + " | " + cell(v) + " |\n";
  return out;
}

std::string markdown_comparison(const RunData& a, const RunData& b, const Comparison& c) {
  std::string out = "# kjudge comparison: " + cell(c.label_a) + " vs " + cell(c.label_b) + "\n\n";
  out += "A: `" + cell(a.dir.string()) + "` · B: `" + cell(b.dir.string()) + "`\n\n";
  out += fmt::format(
      "{} solutions judged in both runs (matched by task_id and sample): {} passed in A only, {} "
      "in B only, {} in both, {} in neither. **Exact McNemar test (two-sided): p = {:.4g}**{}.\n\n",
      c.pairs, c.a_only_pass, c.b_only_pass, c.both_pass, c.both_fail, c.p_value,
      c.p_value < 0.05 ? " — unlikely to be chance alone" : " — may well be chance");
  if (c.unpaired)
    out += fmt::format(
        "{} counted solutions have no counted partner and are left out of the test.\n\n",
        c.unpaired);
  out += "## Pass rates\n\n| group | A: " + cell(c.label_a) + " | B: " + cell(c.label_b) +
         " | B − A |\n| --- | ---: | ---: | ---: |\n";
  auto row = [&](const std::string& name, const PassRate& ra, const PassRate& rb) {
    out += "| " + cell(name) + " | " + rate_text(ra) + " | " + rate_text(rb) + " | " +
           (ra.counted && rb.counted ? fmt::format("{:+.1f} pts", 100 * (rb.rate() - ra.rate()))
                                     : "") +
           " |\n";
  };
  row("all", c.all_a, c.all_b);
  for (const auto& [g, rates] : c.groups) row(g, rates.first, rates.second);
  auto flips = [&](const std::string& title, const std::vector<Flip>& fs) {
    out += fmt::format("\n## {} ({})\n\n", title, fs.size());
    if (fs.empty()) {
      out += "None.\n";
      return;
    }
    out +=
        "| problem | sample | group | A | B | why it failed |\n| --- | ---: | --- | --- | --- | "
        "--- |\n";
    for (const auto& f : fs)
      out +=
          fmt::format("| {} | {} | {} | {} | {} | {} |\n", cell(f.task_id), f.sample, cell(f.group),
                      verdict_words(f.verdict_a), verdict_words(f.verdict_b), cell(f.detail));
  };
  flips("Passed in A, failed in B", c.pass_to_fail);
  flips("Failed in A, passed in B", c.fail_to_pass);
  return out;
}

}  // namespace kjudge::report
