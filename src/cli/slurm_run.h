#pragma once
// `kjudge run --executor slurm`: the model is asked from the submitting machine (it holds the
// API key and the network), and the answers are graded on the cluster as they arrive. Every
// --shard-size answers (or after --shard-wait seconds, or when generation ends) the waiting
// answers become a shard: a solutions file RUN/slurm/solutions/shard-<i>.jsonl and a
// `kjudge evaluate --shard-of` array task over it, submitted at once while the model goes on
// answering. The shards are followed and resubmitted as evaluate's are (slurm_array.h) and
// merged into one results.jsonl (slurm_merge.h).
#include <atomic>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/generation_session.h"
#include "cli/slurm_executor.h"
#include "core/problem.h"

namespace kjudge {

struct SlurmStreamInput {
  std::filesystem::path out;
  SlurmArgs slurm;
  bool resume = false;
  bool quiet = false;
  bool benchmark = false;
  const std::atomic<bool>* stop = nullptr;  // Ctrl-C: stop asking, cancel the arrays, merge
  GenerationSession* session = nullptr;     // opened; its records are the answers so far
  const std::vector<Problem>* problems = nullptr;
  std::function<double(const Problem&)> expected_s;  // the cost model's, for the plan
  // The argv of the array task grading shard `shard`, whose answers are in `solutions`.
  std::function<std::vector<std::string>(const std::filesystem::path& solutions,
                                         const std::filesystem::path& plan, int shard,
                                         const std::filesystem::path& shard_out)>
      shard_command;
  nlohmann::json run_json;  // written as out/run.json, "executor" added
};

// Generates (the session's missing answers), submits shards as answers accumulate, follows
// them, and merges. The result covers the answers that arrived; generation's own summary is
// the caller's (session->finish). Throws std::runtime_error when sbatch fails.
SlurmRunResult run_streaming_on_slurm(const SlurmStreamInput& in);

}  // namespace kjudge
