#pragma once
// `kjudge run --executor slurm`: the model is asked from the submitting machine (it holds the
// API key and the network), and the answers are graded on the cluster as they arrive. Every
// --shard-size answers (or after --shard-wait seconds, or when generation ends) the waiting
// answers become a shard: a solutions file RUN/slurm/solutions/shard-<i>.jsonl and a
// `kjudge evaluate --shard-of` array task over it, submitted at once while the model goes on
// answering. The shards are followed and resubmitted as evaluate's are (array.h) and
// merged into one results.jsonl (merge.h).
#include <atomic>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/problem.h"
#include "gen/generator.h"
#include "slurm/executor.h"

namespace kjudge::slurm {

struct SlurmStreamInput {
  std::filesystem::path out;
  SlurmArgs slurm;
  bool resume = false;
  bool quiet = false;
  bool benchmark = false;
  const std::atomic<bool>* stop = nullptr;  // Ctrl-C: stop asking, cancel the arrays, merge
  // Where the answers come from (kjudge run: the generation session of cli/, opened):
  // `answered`, those journaled before this call; `generate` asks for the missing ones, handing
  // each to its argument as it arrives, and returns when generation has ended;
  // `stop_generating` makes it return early (Ctrl-C, or an error here).
  std::vector<GenRecord> answered;
  std::function<void(const std::function<void(const GenRecord&)>&)> generate;
  std::function<void()> stop_generating;
  const std::vector<Problem>* problems = nullptr;
  std::function<double(const Problem&)> expected_s;  // the cost model's, for the plan
  // The argv of the array task grading shard `shard`, whose answers are in `solutions`.
  std::function<std::vector<std::string>(const std::filesystem::path& solutions,
                                         const std::filesystem::path& plan, int shard,
                                         const std::filesystem::path& shard_out)>
      shard_command;
  nlohmann::json run_json;  // written as out/run.json, "executor" added
};

// Generates (in.generate: the missing answers), submits shards as answers accumulate, follows
// them, and merges. The result covers the answers that arrived; generation's own summary is
// the caller's. Throws std::runtime_error when sbatch fails.
SlurmRunResult run_streaming_on_slurm(const SlurmStreamInput& in);

}  // namespace kjudge::slurm
