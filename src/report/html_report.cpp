// The HTML report of one run: headline numbers, pass@k, verdicts, performance, cheat flags,
// conditions, and a drill-down per problem.
#include <fmt/format.h>

#include "report/html_page.h"
#include "report/html_text.h"
#include "report/render.h"
#include "report/run_view.h"

namespace kjudge::report {
using nlohmann::json;

namespace {

std::string chip(const std::string& verdict) {
  return "<span class=\"v " + verdict_kind(verdict) + "\">" + html_escape(verdict_words(verdict)) +
         "</span>";
}

std::string card(const std::string& num, const std::string& what) {
  return "<div class=\"card\"><div class=\"num\">" + html_escape(num) +
         "</div><div class=\"what\">" + html_escape(what) + "</div></div>";
}

std::string pass_rows(const std::vector<PassRow>& rows) {
  std::string out;
  for (const auto& r : rows) {
    out += "<tr><td>" + html_escape(r.name) + "</td><td class=\"n\">" +
           std::to_string(r.evaluated) + "</td><td class=\"n\">" + std::to_string(r.solutions) +
           "</td>";
    for (const auto& v : r.pass_at_k) out += "<td class=\"n\">" + percent(v) + "</td>";
    out += "</tr>\n";
  }
  return out;
}

std::string pass_section(const PassTable& t, json& data) {
  std::string head = "<tr><th></th><th class=\"n\">problems</th><th class=\"n\">solutions</th>";
  for (int k : t.ks) head += "<th class=\"n\">pass@" + std::to_string(k) + "</th>";
  head += "</tr>\n";
  std::string out = "<section id=\"pass-at-k\"><h2>pass@k</h2>\n";
  out +=
      "<p class=\"note\">The unbiased estimator (Chen et al. 2021), averaged over problems with "
      "at least one counted sample; skipped and judge_error samples are not counted. "
      "\"problems\" counts those evaluated.</p>\n";
  if (!t.ks.empty() && t.groups.size() > 0) {
    out += "<div class=\"chart\"><canvas id=\"chart-groups\"></canvas></div>\n";
    json labels = json::array(), values = json::array();
    for (const auto& g : t.groups) {
      labels.push_back(g.name);
      values.push_back(g.pass_at_k[0] ? json(100 * *g.pass_at_k[0]) : json());
    }
    data["groups"] = {{"labels", labels}, {"values", values}, {"k", t.ks[0]}};
  }
  out += "<table>" + head + pass_rows({t.all}) + "</table>\n";
  out += "<h3>By group</h3><table>" + head + pass_rows(t.groups) + "</table>\n";
  out += "<h3>By difficulty</h3><table>" + head + pass_rows(t.difficulties) + "</table>\n";
  return out + "</section>\n";
}

std::string verdict_section(const RunData& r, json& data) {
  std::string out = "<section id=\"verdicts\"><h2>Verdicts</h2>\n";
  out += "<div class=\"chart\"><canvas id=\"chart-verdicts\"></canvas></div>\n<table>";
  json labels = json::array(), values = json::array(), kinds = json::array();
  for (const auto& [v, n] : verdict_counts(r)) {
    out += "<tr><td>" + chip(v) + "</td><td class=\"n\">" + std::to_string(n) + "</td></tr>\n";
    labels.push_back(verdict_words(v));
    values.push_back(n);
    kinds.push_back(verdict_kind(v));
  }
  out += "</table>\n";
  data["verdicts"] = {{"labels", labels}, {"values", values}, {"kinds", kinds}};
  if (auto skips = skip_reasons(r); !skips.empty()) {
    out += "<h3>Why skipped</h3><table>";
    for (const auto& [why, n] : skips)
      out += "<tr><td>" + html_escape(why) + "</td><td class=\"n\">" + std::to_string(n) +
             "</td></tr>\n";
    out += "</table>\n";
  }
  std::string fails;
  for (const auto& row : r.results) {
    const std::string v = row.value("verdict", "");
    if (v == "pass" || v == "skipped") continue;
    const std::string id = row["task_id"].get<std::string>();
    fails += "<tr><td><a href=\"#p-" + html_escape(id) + "\">" + html_escape(id) +
             "</a></td><td class=\"n\">" + std::to_string(row["sample"].get<int>()) + "</td><td>" +
             chip(v) + "</td><td>" + html_escape(row.value("detail", "")) + "</td></tr>\n";
  }
  if (!fails.empty())
    out +=
        "<h3>Failures</h3><table><tr><th>problem</th><th class=\"n\">sample</th>"
        "<th>verdict</th><th>why</th></tr>\n" +
        fails + "</table>\n";
  return out + "</section>\n";
}

std::string perf_section(const RunData& r, json& data) {
  const json perf = r.summary.value("performance", json());
  if (!perf.is_object() && r.perf.empty()) return "";
  std::string out = "<section id=\"performance\"><h2>Performance</h2>\n";
  out +=
      "<p class=\"note\">Speedup = baseline time / solution time (Hodges–Lehmann estimate, with "
      "its confidence interval). fast_p: the share of every judged solution that is correct and "
      "more than p× faster; \"sure\" counts a solution only when its whole interval lies "
      "above p.</p>\n";
  if (perf.is_object()) {
    out += "<div class=\"cards\">";
    out += card(
        std::to_string(perf.value("timed", 0)) + " / " + std::to_string(perf.value("solutions", 0)),
        "solutions timed");
    const json& g = perf.value("geomean_speedup", json());
    out += card(g.is_number() ? fmt::format("{:.3f}×", g.get<double>()) : "n/a",
                "geometric-mean speedup");
    out += "</div>\n<table><tr><th>p</th><th class=\"n\">fast_p</th><th class=\"n\">sure</th></tr>";
    for (const char* p : {"1", "1.5", "2"}) {
      auto val = [&](const char* key) {
        const json& v = perf.contains(key) ? perf[key].value(p, json()) : json();
        return v.is_number() ? percent(v.get<double>()) : std::string("n/a");
      };
      out += std::string("<tr><td>") + p + "</td><td class=\"n\">" + val("fast_p") +
             "</td><td class=\"n\">" + val("fast_p_confident") + "</td></tr>";
    }
    out += "</table>\n";
  }
  const auto estimates = speedup_estimates(r);
  if (!estimates.empty()) {
    out +=
        "<h3>Speedup distribution</h3><div class=\"chart\"><canvas id=\"chart-speedups\">"
        "</canvas></div>\n";
    json labels = json::array(), values = json::array();
    for (const auto& b : speedup_histogram(estimates)) {
      labels.push_back(b.label);
      values.push_back(b.count);
    }
    data["speedups"] = {{"labels", labels}, {"values", values}};
  }
  std::string rows;
  for (const auto& [key, j] : r.perf) {
    const json& s = j.value("speedup", json());
    rows += "<tr><td><a href=\"#p-" + html_escape(key.first) + "\">" + html_escape(key.first) +
            "</a></td><td class=\"n\">" + std::to_string(key.second) + "</td>";
    if (s.is_object())
      rows += fmt::format(
          "<td class=\"n\">{:.3f}×</td><td class=\"n\">[{:.3f}, {:.3f}]</td><td>{}</td>",
          s.value("estimate", 0.0), s.value("low", 0.0), s.value("high", 0.0),
          html_escape(j.value("how", "")));
    else
      rows += "<td></td><td></td><td>not timed: " + html_escape(j.value("not_timed", "")) + "</td>";
    rows += "</tr>\n";
  }
  if (!rows.empty())
    out +=
        "<h3>Per solution</h3><table><tr><th>problem</th><th class=\"n\">sample</th>"
        "<th class=\"n\">speedup</th><th class=\"n\">interval</th><th>timed as</th></tr>\n" +
        rows + "</table>\n";
  if (perf.is_object() && perf.contains("not_timed") && !perf["not_timed"].empty()) {
    out += "<h3>Not timed</h3><table>";
    for (auto& [why, n] : perf["not_timed"].items())
      out += "<tr><td>" + html_escape(why) + "</td><td class=\"n\">" + n.dump() + "</td></tr>";
    out += "</table>\n";
  }
  return out + "</section>\n";
}

std::string cheat_section(const RunData& r) {
  const auto flags = cheat_flags(r);
  std::string out = "<section id=\"cheats\"><h2>Cheat flags</h2>\n";
  if (flags.empty()) return out + "<p class=\"note\">None recorded in this run.</p></section>\n";
  out += "<table><tr><th>problem</th><th class=\"n\">sample</th><th>flag</th></tr>\n";
  for (const auto& f : flags)
    out += "<tr><td>" + html_escape(f.task_id) + "</td><td class=\"n\">" +
           std::to_string(f.sample) + "</td><td class=\"warn\">" + html_escape(f.flag) +
           "</td></tr>\n";
  return out + "</table></section>\n";
}

std::string conditions_section(const RunData& r) {
  std::string out = "<section id=\"conditions\"><h2>Conditions</h2><table>\n";
  for (const auto& [k, v] : conditions(r))
    out += "<tr><th>" + html_escape(k) + "</th><td>" + html_escape(v) + "</td></tr>\n";
  return out + "</table></section>\n";
}

std::string log_block(const std::string& what, const json& step, const HtmlOptions& o) {
  if (!step.is_object() || !step.value("ran", false)) return "";
  const std::string log = step.value("log", "");
  const double written = step.value("log_bytes", static_cast<double>(log.size()));
  std::string head = fmt::format("{} log: {} written", what, human_bytes(written));
  if (step.value("log_truncated", false))
    head += ", " + human_bytes(log.size()) + " kept by the judge";
  if (log.size() > o.log_bytes) head += ", " + human_bytes(o.log_bytes) + " shown";
  head += fmt::format(" · exit {}", step.value("exit_code", -1));
  if (step.value("signal", 0)) head += fmt::format(", signal {}", step.value("signal", 0));
  if (step.value("timed_out", false)) head += ", timed out";
  head += fmt::format(" · {:.2f} s", step.value("seconds", 0.0));
  if (step.value("cached", false)) head += " (from the build cache)";
  if (step.contains("memory_peak_bytes"))
    head += " · peak memory " + human_bytes(step.value("memory_peak_bytes", 0.0));
  return "<details><summary>" + html_escape(head) + "</summary><pre>" +
         html_escape(head_tail(log, o.log_bytes)) + "</pre></details>\n";
}

std::string problem_section(const RunData& r, const HtmlOptions& o) {
  std::string out = "<section id=\"problems\"><h2>Problems</h2>\n";
  for (const auto& p : problem_rows(r)) {
    out += "<details class=\"problem\" id=\"p-" + html_escape(p.task_id) + "\"><summary><b>" +
           html_escape(p.task_id) + "</b> · " + html_escape(p.group) + " · " +
           html_escape(p.difficulty) + " · " + std::to_string(p.passed) + "/" +
           std::to_string(p.counted) + " passed ";
    for (const json* s : p.samples) out += chip((*s)["verdict"].get<std::string>());
    out += "</summary>\n";
    if (auto it = r.problems.find(p.task_id); it != r.problems.end()) {
      const std::string& prompt = it->second.prompt;
      out += "<h4>Prompt</h4><pre>" + html_escape(head_tail(prompt, o.file_bytes)) + "</pre>\n";
    }
    for (const json* sp : p.samples) {
      const json& s = *sp;
      const int sample = s["sample"].get<int>();
      out += "<h4>Sample " + std::to_string(sample) + " " + chip(s["verdict"].get<std::string>()) +
             "</h4>\n";
      if (!s.value("detail", "").empty())
        out += "<p>" + html_escape(s.value("detail", "")) + "</p>\n";
      if (auto pf = r.perf.find({p.task_id, sample}); pf != r.perf.end()) {
        const json& sp2 = pf->second.value("speedup", json());
        out += sp2.is_object()
                   ? fmt::format("<p>speedup {:.3f}× [{:.3f}, {:.3f}]</p>\n",
                                 sp2.value("estimate", 0.0), sp2.value("low", 0.0),
                                 sp2.value("high", 0.0))
                   : "<p>not timed: " + html_escape(pf->second.value("not_timed", "")) + "</p>\n";
      }
      if (auto f = r.solution_files.find({p.task_id, sample}); f != r.solution_files.end())
        for (const auto& file : f->second)
          out += "<details><summary>" + html_escape(file.path) + " (" +
                 human_bytes(file.content.size()) + ")</summary><pre>" +
                 html_escape(head_tail(file.content, o.file_bytes)) + "</pre></details>\n";
      out += log_block("build", s.value("build", json()), o);
      out += log_block("test", s.value("test", json()), o);
    }
    out += "</details>\n";
  }
  return out + "</section>\n";
}

}  // namespace

std::string html_report(const RunData& r, const HtmlOptions& o) {
  const PassTable t = pass_table(r.summary);
  json data = json::object();
  std::string body = "<header><h1>kjudge report: " + html_escape(run_label(r)) +
                     "</h1>\n<p class=\"sub\">" +
                     html_escape(r.run.value("command", std::string("run"))) + " · " +
                     html_escape(r.run.value("started_at", "")) + " · " +
                     html_escape(r.dir.string()) + "</p></header>\n";
  body += "<div class=\"cards\">";
  for (std::size_t i = 0; i < t.ks.size(); ++i)
    body += card(percent(t.all.pass_at_k[i]), "pass@" + std::to_string(t.ks[i]));
  body += card(std::to_string(t.all.solutions), "solutions");
  body += card(std::to_string(t.all.evaluated) + " / " + std::to_string(t.all.problems),
               "problems evaluated");
  body += "</div>\n";
  if (auto w = warnings(r); !w.empty()) {
    body += "<section id=\"warnings\"><ul>";
    for (const auto& s : w) body += "<li class=\"warn\">" + html_escape(s) + "</li>";
    body += "</ul></section>\n";
  }
  body += pass_section(t, data);
  body += verdict_section(r, data);
  body += perf_section(r, data);
  body += cheat_section(r);
  body += conditions_section(r);
  body += problem_section(r, o);

  const std::string script = "const D = " + script_json(data) + R"(;
const colors = { pass: '#2e7d32', fail: '#c62828', skip: '#757575', error: '#ef6c00' };
if (D.groups) kjBar('chart-groups', D.groups.labels,
  [{ label: 'pass@' + D.groups.k, data: D.groups.values, backgroundColor: '#1565c0' }], { percent: true });
if (D.verdicts) kjBar('chart-verdicts', D.verdicts.labels, [{ label: 'solutions',
  data: D.verdicts.values, backgroundColor: D.verdicts.kinds.map(k => colors[k]) }], { horizontal: true });
if (D.speedups) kjBar('chart-speedups', D.speedups.labels,
  [{ label: 'solutions', data: D.speedups.values, backgroundColor: '#6a1b9a' }]);
)";
  return html_page("kjudge report: " + run_label(r), body, script);
}

}  // namespace kjudge::report
