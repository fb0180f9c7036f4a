#include "eval/schedule.h"

#include <algorithm>
#include <numeric>

namespace kjudge {

std::vector<std::size_t> plan_order(const std::vector<JobCost>& costs) {
  std::vector<std::size_t> idx(costs.size());
  std::iota(idx.begin(), idx.end(), 0);
  if (costs.empty()) return idx;
  std::vector<double> builds;
  for (const auto& c : costs) builds.push_back(c.build_s);
  std::nth_element(builds.begin(), builds.begin() + builds.size() / 2, builds.end());
  const double median = builds[builds.size() / 2];
  auto cheap = [&](std::size_t i) { return costs[i].build_s <= median; };
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
    bool ca = cheap(a), cb = cheap(b);
    if (ca != cb) return ca;
    if (ca) return costs[a].test_s > costs[b].test_s;
    return costs[a].build_s > costs[b].build_s;
  });
  return idx;
}

}  // namespace kjudge
