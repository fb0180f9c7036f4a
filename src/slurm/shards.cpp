// The LPT cut of a run into shards balanced by expected cost (shards.h).
#include "slurm/shards.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <tuple>

namespace kjudge::slurm {

namespace {

double cost_of(const ShardJob& j) {
  return std::isfinite(j.expected_s) && j.expected_s > 0 ? j.expected_s : 0.0;
}

bool key_less(const ShardJob& a, const ShardJob& b) {
  return std::tie(a.task_id, a.sample) < std::tie(b.task_id, b.sample);
}

}  // namespace

std::vector<Shard> make_shards(const std::vector<ShardJob>& jobs, std::size_t shards) {
  if (shards == 0) throw std::invalid_argument("make_shards: shard count must be at least 1");
  std::vector<std::size_t> order(jobs.size());
  std::iota(order.begin(), order.end(), 0);
  // Key order first, so duplicates are adjacent and cost ties fall back on the key.
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return key_less(jobs[a], jobs[b]); });
  for (std::size_t i = 1; i < order.size(); ++i)
    if (!key_less(jobs[order[i - 1]], jobs[order[i]]))
      throw std::invalid_argument("make_shards: duplicate job " + jobs[order[i]].task_id +
                                  " sample " + std::to_string(jobs[order[i]].sample));
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return cost_of(jobs[a]) > cost_of(jobs[b]);
  });

  std::vector<Shard> out(std::min(shards, jobs.size()));
  // Each of the first out.size() jobs opens its own shard, so no shard stays empty; the rest go
  // to the least-loaded shard. On equal load the shard with fewer jobs wins, so jobs without
  // any cost history (all 0) are dealt out evenly instead of piling onto one shard.
  for (std::size_t k = 0; k < order.size(); ++k) {
    std::size_t target = k;
    if (k >= out.size()) {
      target = 0;
      for (std::size_t s = 1; s < out.size(); ++s)
        if (out[s].expected_s < out[target].expected_s ||
            (out[s].expected_s == out[target].expected_s &&
             out[s].jobs.size() < out[target].jobs.size()))
          target = s;
    }
    out[target].jobs.push_back(order[k]);
    out[target].expected_s += cost_of(jobs[order[k]]);
  }
  for (auto& s : out) std::sort(s.jobs.begin(), s.jobs.end());
  // Number shards by content, not by when the greedy opened them, so the numbering is stable
  // too; a shard's smallest key identifies it because keys are unique.
  auto first_key = [&](const Shard& s) {
    return *std::min_element(s.jobs.begin(), s.jobs.end(), [&](std::size_t a, std::size_t b) {
      return key_less(jobs[a], jobs[b]);
    });
  };
  std::sort(out.begin(), out.end(), [&](const Shard& a, const Shard& b) {
    return key_less(jobs[first_key(a)], jobs[first_key(b)]);
  });
  return out;
}

double shard_imbalance(const std::vector<Shard>& shards) {
  if (shards.empty()) return 1.0;
  double total = 0, worst = 0;
  for (const auto& s : shards) {
    total += s.expected_s;
    worst = std::max(worst, s.expected_s);
  }
  if (total <= 0) return 1.0;
  return worst / (total / static_cast<double>(shards.size()));
}

}  // namespace kjudge::slurm
