// Problem filters and load reports (plan/load.h).
#include "plan/load.h"

#include <fmt/format.h>

#include <algorithm>

namespace kjudge::plan {

std::vector<Problem> filter_problems(const std::vector<Problem>& problems, const ProblemFilter& f) {
  auto in = [](const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  std::vector<Problem> out;
  for (const auto& p : problems) {
    if (!f.groups.empty() && !in(f.groups, p.group)) continue;
    if (in(f.exclude_groups, p.group)) continue;
    if (!f.difficulties.empty() && !in(f.difficulties, p.difficulty)) continue;
    if (!f.task_ids.empty() && !in(f.task_ids, p.task_id)) continue;
    out.push_back(p);
    if (f.limit > 0 && static_cast<int>(out.size()) >= f.limit) break;
  }
  return out;
}

int print_load_errors(const LoadReport& report) {
  for (const auto& e : report.errors)
    fmt::print(stderr, "kjudge: warning: skipped: {}\n", e.what());
  return static_cast<int>(report.errors.size());
}

}  // namespace kjudge::plan
