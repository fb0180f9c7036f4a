#include "perf/interleave.h"

#include <stdexcept>
#include <string>

namespace kjudge {
namespace {

void add_pairs(std::vector<PlannedRun>& plan, int pairs, bool warmup) {
  for (int k = 0; k < pairs; ++k) {
    const int first = k % 2;  // restarts at each phase, so the timed phase is balanced alone
    plan.push_back({first, k, warmup});
    plan.push_back({1 - first, k, warmup});
  }
}

}  // namespace

std::vector<PlannedRun> interleave_plan(int runs, int warmups) {
  if (runs < 1 || warmups < 0) {
    throw std::invalid_argument(
        "a run plan needs runs >= 1 and warmups >= 0 (runs=" + std::to_string(runs) +
        ", warmups=" + std::to_string(warmups) + ")");
  }
  std::vector<PlannedRun> plan;
  plan.reserve(2 * static_cast<std::size_t>(runs + warmups));
  add_pairs(plan, warmups, true);
  add_pairs(plan, runs, false);
  return plan;
}

}  // namespace kjudge
