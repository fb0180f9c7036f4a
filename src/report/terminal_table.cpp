#include "report/terminal_table.h"

#include <fmt/format.h>

#include <vector>

namespace kjudge::report {
using nlohmann::json;

namespace {

// Verdict columns: a few wide enough to tell failures apart, the rare ones folded together.
struct Column {
  const char* title;
  std::vector<const char*> verdicts;
};
const std::vector<Column>& columns() {
  static const std::vector<Column> c = {
      {"pass", {"pass"}},
      {"build", {"build_error", "build_timeout"}},
      {"fail", {"test_fail", "sanitizer_error"}},
      {"timeout", {"test_timeout"}},
      {"crash", {"crash"}},
      {"other", {"source_reference_missing", "invalid_solution"}},
      {"skip", {"skipped"}},
      {"j.err", {"judge_error"}},
  };
  return c;
}

std::string row(const std::string& name, const json& slice, const std::vector<std::string>& ks) {
  std::string out =
      fmt::format("{:<22} {:>8} {:>9}", name.size() > 22 ? name.substr(0, 21) + "…" : name,
                  slice.value("evaluated_problems", 0), slice.value("solutions", 0));
  const json verdicts = slice.value("verdicts", json::object());
  for (const auto& c : columns()) {
    int n = 0;
    for (const char* v : c.verdicts) n += verdicts.value(v, 0);
    out += fmt::format(" {:>7}", n);
  }
  const json pk = slice.value("pass_at_k", json::object());
  for (const auto& k : ks) {
    const json& v = pk.value(k, json());
    out += v.is_number() ? fmt::format(" {:>7.1f}%", 100 * v.get<double>())
                         : fmt::format(" {:>8}", "n/a");
  }
  return out + "\n";
}

// --sanitize and --repeat (issue 34): what compute-sanitizer found, which solutions were flaky;
// in validate, the baselines they name are their problems' defects.
std::string luck_lines(const json& s) {
  std::string out;
  const bool validate = s.value("command", std::string()) == "validate";
  const std::string who = validate ? "baselines" : "solutions";
  auto key = [](const json& x) {
    return x.value("task_id", std::string()) + "#" + std::to_string(x.value("sample", 0));
  };
  // At most 10 lines of a list, then how many more summary.json holds.
  auto listed = [](const json& list, const auto& line) {
    std::string text;
    std::size_t shown = 0;
    for (const auto& x : list) {
      if (++shown > 10) {
        text += fmt::format("  … and {} more in summary.json\n", list.size() - 10);
        break;
      }
      text += line(x);
    }
    return text;
  };
  const json san = s.value("sanitizer", json());
  if (san.is_object()) {
    std::vector<std::string> tools;
    for (const auto& t : san.value("tools", json::array())) tools.push_back(t.get<std::string>());
    out += fmt::format(
        "sanitizer ({}): {} passing {} checked: {} clean, {} with errors, {} inconclusive "
        "(judge_error)\n",
        fmt::join(tools, ","), san.value("checked", 0), who, san.value("clean", 0),
        san.value("errors", 0), san.value("inconclusive", 0));
    out += listed(san.value("flagged", json::array()), [&](const json& f) {
      return fmt::format("  {} {}: {}: {}{}\n", validate ? "defective baseline" : "flagged", key(f),
                         f.value("tool", std::string()), f.value("first_error", std::string()),
                         validate ? " (the problem's defect)" : "");
    });
  }
  const json rep = s.value("repeat", json());
  if (rep.is_object()) {
    out += fmt::format("repeat {}: {} {} run {} times, {} flaky\n", rep.value("runs", 1),
                       rep.value("repeated", 0), who, rep.value("runs", 1), rep.value("flaky", 0));
    out += listed(rep.value("flaky_solutions", json::array()), [&](const json& f) {
      std::vector<std::string> runs;
      for (const auto& v : f.value("runs", json::array())) runs.push_back(v.get<std::string>());
      return fmt::format("  flaky {}: {} → {}\n", key(f), fmt::join(runs, " "),
                         f.value("verdict", std::string()));
    });
  }
  return out;
}

}  // namespace

std::string terminal_table(const json& s) {
  std::vector<std::string> ks;
  for (const auto& k : s.value("ks", json::array())) ks.push_back(k.dump());
  std::string head = fmt::format("{:<22} {:>8} {:>9}", "", "problems", "solutions");
  for (const auto& c : columns()) head += fmt::format(" {:>7}", c.title);
  for (const auto& k : ks) head += fmt::format(" {:>8}", "pass@" + k);
  std::string out;
  // A run of builds reads like a run of tests: said above the table, not only in summary.json.
  if (s.value("build_only", false))
    out +=
        "BUILD ONLY: every solution was built and none was tested; 'pass' means it built, "
        "and pass@k says nothing of correctness\n";
  out += head + "\n" + row("all", s, ks);
  for (const char* key : {"groups", "difficulties"}) {
    const json slices = s.value(key, json::object());
    if (slices.size() < 2) continue;  // one group says nothing the "all" row does not
    out += std::string(key) == "groups" ? "by group\n" : "by difficulty\n";
    for (auto& [name, slice] : slices.items()) out += row("  " + name, slice, ks);
  }
  const json skipped = s.value("skipped_reasons", json::object());
  if (!skipped.empty()) {
    std::vector<std::string> parts;
    for (auto& [why, n] : skipped.items()) parts.push_back(why + " " + n.dump());
    out += fmt::format("skipped: {}\n", fmt::join(parts, ", "));
  }
  const json perf = s.value("performance", json());
  if (perf.is_object()) {
    const json& g = perf.value("geomean_speedup", json());
    out += fmt::format("timed {} of {}; geomean speedup {}", perf.value("timed", 0),
                       perf.value("solutions", 0),
                       g.is_number() ? fmt::format("{:.3f}×", g.get<double>()) : "n/a");
    const json fast = perf.value("fast_p", json::object()),
               sure = perf.value("fast_p_confident", json::object());
    for (const char* p : {"1", "1.5", "2"})
      if (fast.value(p, json()).is_number() && sure.value(p, json()).is_number())
        out += fmt::format("; fast_{} {:.1f}% ({:.1f}% sure)", p, 100 * fast[p].get<double>(),
                           100 * sure[p].get<double>());
    out += "\n";
  }
  out += luck_lines(s);
  const json t = s.value("timing", json::object());
  out += fmt::format(
      "wall {:.1f} s; build {:.1f} s and test {:.1f} s summed; {} builds from the cache\n",
      t.value("wall_s", 0.0), t.value("build_s_sum", 0.0), t.value("test_s_sum", 0.0),
      t.value("cached_builds", 0));
  return out;
}

}  // namespace kjudge::report
