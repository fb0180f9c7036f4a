#pragma once
// The options of --executor slurm as plain values: what the engine (executor.h, run.h,
// array.h) is given. Kept apart from the command line so that nothing in src/slurm depends on
// CLI11; cli/slurm_options.h adds these options to kjudge validate|evaluate|run.
#include <string>
#include <vector>

namespace kjudge::slurm {

struct SlurmArgs {
  std::string executor = "local";
  std::string partition;
  int gpus_per_task = 0;  // 0: no gres request (host-only problems)
  int max_parallel = 0;   // 0: no throttle on the array
  std::vector<std::string> sbatch_args;
  int shards = 0;  // 0: min(jobs, 16)
  // kjudge run: a shard is cut once this many answers wait, or the oldest has waited
  // shard_wait_s, or generation has ended.
  int shard_size = 16;
  double shard_wait_s = 60;
  int shard_retries = 3;
  double poll_s = 2;
  // Hidden: what an array task is given.
  std::string shard_of;
  int shard = -1;
};

}  // namespace kjudge::slurm
