// The HTML page of `kjudge report --compare A B`.
#include <fmt/format.h>

#include "report/html_page.h"
#include "report/html_text.h"
#include "report/render.h"
#include "report/run_view.h"

namespace kjudge::report {
using nlohmann::json;

namespace {

std::string flips_table(const std::vector<Flip>& flips, const Comparison& c) {
  if (flips.empty()) return "<p class=\"note\">None.</p>\n";
  std::string out = "<table><tr><th>problem</th><th class=\"n\">sample</th><th>group</th><th>" +
                    html_escape(c.label_a) + "</th><th>" + html_escape(c.label_b) +
                    "</th><th>why it failed</th></tr>\n";
  for (const auto& f : flips)
    out += "<tr><td>" + html_escape(f.task_id) + "</td><td class=\"n\">" +
           std::to_string(f.sample) + "</td><td>" + html_escape(f.group) +
           "</td><td><span class=\"v " + verdict_kind(f.verdict_a) + "\">" +
           html_escape(verdict_words(f.verdict_a)) + "</span></td><td><span class=\"v " +
           verdict_kind(f.verdict_b) + "\">" + html_escape(verdict_words(f.verdict_b)) +
           "</span></td><td>" + html_escape(f.detail) + "</td></tr>\n";
  return out + "</table>\n";
}

}  // namespace

std::string html_comparison(const RunData& a, const RunData& b, const Comparison& c) {
  std::string body =
      "<header><h1>kjudge comparison</h1><p class=\"sub\">A: " + html_escape(c.label_a) + " (" +
      html_escape(a.dir.string()) + ") · B: " + html_escape(c.label_b) + " (" +
      html_escape(b.dir.string()) + ")</p></header>\n";
  body += "<div class=\"cards\">";
  body += "<div class=\"card\"><div class=\"num\">" + html_escape(rate_text(c.all_a)) +
          "</div><div class=\"what\">A passed</div></div>";
  body += "<div class=\"card\"><div class=\"num\">" + html_escape(rate_text(c.all_b)) +
          "</div><div class=\"what\">B passed</div></div>";
  body += fmt::format(
      "<div class=\"card\"><div class=\"num\">p = {:.4g}</div><div "
      "class=\"what\">exact McNemar, two-sided</div></div>",
      c.p_value);
  body += "</div>\n";

  body += "<section id=\"significance\"><h2>Is the difference real?</h2>\n";
  body += fmt::format(
      "<p class=\"big\">{} solutions were judged in both runs (matched by task_id and sample). "
      "{} passed in A only and {} in B only; {} passed in both, {} in neither. The exact McNemar "
      "test on the {} discordant pairs gives <b>p = {:.4g}</b> (two-sided): {}.</p>\n",
      c.pairs, c.a_only_pass, c.b_only_pass, c.both_pass, c.both_fail,
      c.a_only_pass + c.b_only_pass, c.p_value,
      c.p_value < 0.05 ? "a difference this large is unlikely by chance alone (p < 0.05)"
                       : "the difference may well be chance (p ≥ 0.05)");
  if (c.unpaired)
    body += "<p class=\"note\">" + std::to_string(c.unpaired) +
            " counted solutions have no counted partner in the other run and are left out of the "
            "test (but not of the pass rates).</p>\n";
  body += "</section>\n";

  body +=
      "<section id=\"side-by-side\"><h2>Pass rates</h2>\n"
      "<p class=\"note\">Share of counted samples (not skipped, not judge_error) that "
      "passed.</p><div class=\"chart\"><canvas id=\"chart-compare\"></canvas></div>\n";
  body += "<table><tr><th>group</th><th class=\"n\">A: " + html_escape(c.label_a) +
          "</th><th class=\"n\">B: " + html_escape(c.label_b) +
          "</th><th class=\"n\">B − A</th></tr>\n";
  json labels = json::array(), va = json::array(), vb = json::array();
  auto row = [&](const std::string& name, const PassRate& ra, const PassRate& rb) {
    std::string diff = ra.counted && rb.counted
                           ? fmt::format("{:+.1f} pts", 100 * (rb.rate() - ra.rate()))
                           : std::string("");
    body += "<tr><td>" + html_escape(name) + "</td><td class=\"n\">" + rate_text(ra) +
            "</td><td class=\"n\">" + rate_text(rb) + "</td><td class=\"n\">" + diff +
            "</td></tr>\n";
    labels.push_back(name);
    va.push_back(ra.counted ? json(100 * ra.rate()) : json());
    vb.push_back(rb.counted ? json(100 * rb.rate()) : json());
  };
  row("all", c.all_a, c.all_b);
  for (const auto& [g, rates] : c.groups) row(g, rates.first, rates.second);
  body += "</table>\n";
  const PassTable ta = pass_table(a.summary), tb = pass_table(b.summary);
  body += "<h3>pass@k</h3><table><tr><th></th><th class=\"n\">A</th><th class=\"n\">B</th></tr>\n";
  for (std::size_t i = 0; i < ta.ks.size(); ++i)
    for (std::size_t j = 0; j < tb.ks.size(); ++j)
      if (ta.ks[i] == tb.ks[j])
        body += "<tr><td>pass@" + std::to_string(ta.ks[i]) + "</td><td class=\"n\">" +
                percent(ta.all.pass_at_k[i]) + "</td><td class=\"n\">" +
                percent(tb.all.pass_at_k[j]) + "</td></tr>\n";
  body += "</table></section>\n";

  body +=
      "<section id=\"flips\"><h2>Flipped</h2><h3 class=\"flip-down\">Passed in A, failed in B (" +
      std::to_string(c.pass_to_fail.size()) + ")</h3>\n" + flips_table(c.pass_to_fail, c);
  body += "<h3 class=\"flip-up\">Failed in A, passed in B (" +
          std::to_string(c.fail_to_pass.size()) + ")</h3>\n" + flips_table(c.fail_to_pass, c) +
          "</section>\n";

  json data = {{"labels", labels}, {"a", va}, {"b", vb}, {"la", c.label_a}, {"lb", c.label_b}};
  const std::string script = "const D = " + script_json(data) + R"(;
kjBar('chart-compare', D.labels, [
  { label: 'A: ' + D.la, data: D.a, backgroundColor: '#1565c0' },
  { label: 'B: ' + D.lb, data: D.b, backgroundColor: '#ef6c00' }], { percent: true });
)";
  return html_page("kjudge comparison: " + c.label_a + " vs " + c.label_b, body, script);
}

}  // namespace kjudge::report
