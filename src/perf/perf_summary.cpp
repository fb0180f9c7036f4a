#include "perf/perf_summary.h"

#include <map>
#include <utility>

namespace kjudge {
namespace {

constexpr const char* kIncorrect = "incorrect";
constexpr const char* kNoReason = "not timed (no reason given)";

bool is_timed(const PerfOutcome& o) { return o.correct && o.speedup.has_value(); }

nlohmann::json summarize_some(const std::vector<const PerfOutcome*>& outcomes) {
  std::vector<double> estimates;
  std::vector<std::optional<double>> speedups;
  std::vector<std::optional<double>> lows;  // the intervals' lower ends
  nlohmann::json not_timed = nlohmann::json::object();
  for (const PerfOutcome* o : outcomes) {
    if (is_timed(*o)) {
      estimates.push_back(o->speedup->estimate);
      speedups.emplace_back(o->speedup->estimate);
      lows.emplace_back(o->speedup->low);
      continue;
    }
    speedups.emplace_back(std::nullopt);
    lows.emplace_back(std::nullopt);
    const std::string reason = !o->correct            ? kIncorrect
                               : o->not_timed.empty() ? kNoReason
                                                      : o->not_timed;
    not_timed[reason] = not_timed.value(reason, 0) + 1;
  }

  nlohmann::json j;
  j["solutions"] = outcomes.size();
  j["timed"] = estimates.size();
  j["not_timed"] = std::move(not_timed);
  j["geomean_speedup"] =
      estimates.empty() ? nlohmann::json() : nlohmann::json(geometric_mean(estimates));
  nlohmann::json fast = nlohmann::json::object();
  nlohmann::json sure = nlohmann::json::object();
  for (const auto& [key, p] : {std::pair{"1", 1.0}, {"1.5", 1.5}, {"2", 2.0}}) {
    fast[key] = speedups.empty() ? nlohmann::json() : nlohmann::json(fast_p(speedups, p));
    sure[key] = lows.empty() ? nlohmann::json() : nlohmann::json(fast_p(lows, p));
  }
  j["fast_p"] = std::move(fast);
  // fast_p counts estimates, so noise alone makes about half of a baseline's copies "faster
  // than the baseline" (measured: 0.56 of 25 baselines timed against themselves). This one
  // counts a solution only when its whole confidence interval lies above p.
  j["fast_p_confident"] = std::move(sure);
  return j;
}

}  // namespace

nlohmann::json summarize_perf(const std::vector<PerfOutcome>& outcomes) {
  std::vector<const PerfOutcome*> all;
  std::map<std::string, std::vector<const PerfOutcome*>> by_group;
  for (const PerfOutcome& o : outcomes) {
    all.push_back(&o);
    by_group[o.group].push_back(&o);
  }
  nlohmann::json j = summarize_some(all);
  nlohmann::json groups = nlohmann::json::object();
  for (const auto& [group, members] : by_group) groups[group] = summarize_some(members);
  j["groups"] = std::move(groups);
  return j;
}

}  // namespace kjudge
