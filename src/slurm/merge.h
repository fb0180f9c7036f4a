#pragma once
// The shards of a Slurm run (array.h) merged into the run directory as a local run
// would have written it: results.jsonl, and with --benchmark perf.jsonl and
// perf-conditions.json. Jobs of shards given up become judge_error, never a model verdict.
#include <filesystem>
#include <vector>

#include "slurm/array.h"
#include "slurm/executor.h"

namespace kjudge::slurm {

struct MergeOptions {
  std::filesystem::path out;
  bool interrupted = false;
  bool benchmark = false;
};

// `jobs`: every job planned (the judge_errors of lost shards take their group from here).
SlurmRunResult merge_shards(const ShardArray& array, const std::vector<PlannedJob>& jobs,
                            const MergeOptions& mo);

}  // namespace kjudge::slurm
