#pragma once
// The performance numbers of a set of judged solutions: how many were timed, why the others
// were not, the geometric-mean speedup and fast_p, overall and per problem group.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "perf/stats.h"

namespace kjudge {

struct PerfOutcome {
  std::string task_id;
  int sample = 0;
  std::string group;
  bool correct = false;
  std::optional<RatioInterval> speedup;  // set when timed
  std::string not_timed;                 // why not, when correct and !speedup
};

// {"solutions": n, "timed": n, "not_timed": {reason: count}, "geomean_speedup": x | null,
//  "fast_p": {"1": x, "1.5": y, "2": z}, "fast_p_confident": {the same, counting a solution only
//  when its interval's lower end is above p}, "groups": {group: {the same keys but groups}}}.
// A solution is timed when it is correct and has a speedup; every other one is counted under
// not_timed, the incorrect ones under "incorrect", so solutions = timed + the sum of not_timed.
// The geometric mean is over the timed solutions' estimates (null when none was timed); fast_p
// counts every solution in its denominator, and null only when there are none.
nlohmann::json summarize_perf(const std::vector<PerfOutcome>& outcomes);

}  // namespace kjudge
