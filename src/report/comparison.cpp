#include "report/comparison.h"

#include <fmt/format.h>

#include "report/mcnemar.h"

namespace kjudge::report {

std::string rate_text(const PassRate& r) {
  return r.counted ? fmt::format("{:.1f}% ({}/{})", 100 * r.rate(), r.passed, r.counted)
                   : std::string("n/a");
}

namespace {

std::string group_of(const nlohmann::json& row) {
  std::string g = row.value("group", "");
  return g.empty() ? "(none)" : g;
}

void tally(const RunData& r, PassRate& all,
           std::map<std::string, std::pair<PassRate, PassRate>>& groups, bool first) {
  for (const auto& row : r.results) {
    if (!counted(row)) continue;
    const bool pass = row.value("verdict", "") == "pass";
    PassRate& g = first ? groups[group_of(row)].first : groups[group_of(row)].second;
    for (PassRate* p : {&all, &g}) {
      p->counted++;
      p->passed += pass;
    }
  }
}

}  // namespace

std::string run_label(const RunData& r) {
  std::string name = r.dir.filename().string();
  if (name.empty()) name = r.dir.parent_path().filename().string();  // "runs/a/"
  if (r.summary.contains("generation") && r.summary["generation"].is_object()) {
    const std::string model = r.summary["generation"].value("model", "");
    if (!model.empty()) name += " (" + model + ")";
  }
  return name;
}

Comparison compare_runs(const RunData& a, const RunData& b) {
  Comparison c;
  c.label_a = run_label(a);
  c.label_b = run_label(b);
  tally(a, c.all_a, c.groups, true);
  tally(b, c.all_b, c.groups, false);

  std::map<SolutionKey, const nlohmann::json*> in_b;
  for (const auto& row : b.results)
    in_b[{row["task_id"].get<std::string>(), row["sample"].get<int>()}] = &row;
  std::map<SolutionKey, bool> seen_a;
  for (const auto& ra : a.results) {
    SolutionKey key{ra["task_id"].get<std::string>(), ra["sample"].get<int>()};
    seen_a[key] = counted(ra);
    auto it = in_b.find(key);
    if (!counted(ra) || it == in_b.end() || !counted(*it->second)) {
      c.unpaired += counted(ra);
      continue;
    }
    const nlohmann::json& rb = *it->second;
    const bool pa = ra.value("verdict", "") == "pass";
    const bool pb = rb.value("verdict", "") == "pass";
    c.pairs++;
    if (pa && pb) {
      c.both_pass++;
    } else if (!pa && !pb) {
      c.both_fail++;
    } else {
      Flip f{key.first,
             key.second,
             group_of(ra),
             ra.value("verdict", ""),
             rb.value("verdict", ""),
             (pa ? rb : ra).value("detail", "")};
      if (pa) {
        c.a_only_pass++;
        c.pass_to_fail.push_back(std::move(f));
      } else {
        c.b_only_pass++;
        c.fail_to_pass.push_back(std::move(f));
      }
    }
  }
  for (const auto& [key, row] : in_b) {
    auto it = seen_a.find(key);
    // Counted in B but not paired: absent from A, or not counted there.
    if (counted(*row) && (it == seen_a.end() || !it->second)) c.unpaired++;
  }
  c.p_value = mcnemar_exact_p(c.a_only_pass, c.b_only_pass);
  return c;
}

}  // namespace kjudge::report
