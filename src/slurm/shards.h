#pragma once
// Cutting a run into shards for a Slurm job array: one array task per shard, each running
// kjudge on its share of the jobs. The run lasts as long as its slowest shard, so shards are
// balanced by the cost model's expected seconds with the LPT rule (longest job first, onto the
// least-loaded shard), which is within 4/3 of the best possible makespan. The cut must be
// deterministic: a resubmitted shard has to get exactly the jobs it had, and the submitter and
// every array task compute it independently from the same inputs.
#include <cstddef>
#include <string>
#include <vector>

namespace kjudge::slurm {

struct ShardJob {
  std::string task_id;
  int sample = 0;
  double expected_s = 0;  // CostModel::expected_total_s; negative or NaN counts as 0
};

struct Shard {
  std::vector<std::size_t> jobs;  // indices into the input, ascending
  double expected_s = 0;          // sum of the jobs' expected seconds
};

// Cuts `jobs` into at most `shards` non-empty shards (fewer when there are fewer jobs; none
// when there are no jobs). The result depends only on the multiset of (task_id, sample,
// expected_s): ties in cost are broken by (task_id, sample), not by input position, so a
// reordered job list gives the same shards (as index sets of the reordered input). Shards are
// numbered in order of their first job's (task_id, sample). Throws std::invalid_argument when
// `shards` is 0 or when two jobs share a (task_id, sample).
std::vector<Shard> make_shards(const std::vector<ShardJob>& jobs, std::size_t shards);

// The slowest shard's expected seconds over the mean's (1.0 is perfect); 1.0 for no shards.
double shard_imbalance(const std::vector<Shard>& shards);

}  // namespace kjudge::slurm
