#pragma once
// `kjudge evaluate|validate --executor slurm`: the run cut into shards by expected cost
// (shards.h), submitted as one Slurm job array (submit.h) whose task i runs
// this same kjudge command on shard i alone (--shard-of PLAN --shard i --out RUN/shards/i),
// followed with squeue/scontrol, shards lost to the machine resubmitted, and the shard journals
// merged into one results.jsonl. Everything a shard writes lives in the run directory, which
// must be on storage the submitter and the nodes share.
#include <atomic>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "eval/graded.h"
#include "eval/journal.h"
#include "slurm/options.h"

namespace kjudge::slurm {

// One job of the run as the plan records it.
struct PlannedJob {
  SolutionKey key;
  std::string group, difficulty;  // for the judge_error of a job whose shard was lost for good
  double expected_s = 0;
};

// The solutions shard `shard` of the plan at `plan_path` grades. Throws std::runtime_error
// when the plan is unreadable or has no such shard.
std::set<SolutionKey> shard_keys(const std::filesystem::path& plan_path, int shard);

struct SlurmRunInput {
  std::string command;  // validate | evaluate
  std::filesystem::path out;
  std::vector<PlannedJob> jobs;
  SlurmArgs slurm;
  bool resume = false;
  bool quiet = false;
  bool benchmark = false;                   // shards time their passes too (perf.jsonl)
  const std::atomic<bool>* stop = nullptr;  // set by Ctrl-C: cancel the array, merge what is done
  nlohmann::json run_json;                  // written as out/run.json, "executor" added
};

struct SlurmRunResult {
  std::vector<GradedSolution> results;  // merged, one per planned job that finished
  bool complete = false;  // every planned job has a result that is not a lost-shard judge_error
  bool interrupted = false;
  std::string sandbox, sandbox_limits;  // from the shards' summaries
  std::string main_guard;               // likewise ("on", or "off (…)"; joined where they differ)
  nlohmann::json broken_gpus = nlohmann::json::array();
  nlohmann::json warnings = nlohmann::json::array();
  nlohmann::json notes = nlohmann::json::array();
  // --benchmark: the shards' profiler, driver and CUDA version (they ran on other machines).
  nlohmann::json perf_env = nlohmann::json::object();
  // summary.json "executor": the shard count and the submissions, for people and bench/.
  nlohmann::json executor;
};

// Plans (or, with resume, reloads the plan of) the run, submits, follows, resubmits and merges
// into out/results.jsonl. Throws std::runtime_error when sbatch itself fails.
SlurmRunResult run_on_slurm(const SlurmRunInput& in);

// This process's command line, from /proc/self/cmdline.
std::vector<std::string> own_cmdline();
// A shard of plan.json: {index, expected_s, jobs: [{task_id, sample, group, difficulty,
// expected_s}]}.
nlohmann::json plan_shard(std::size_t index, const std::vector<const PlannedJob*>& jobs);
// run.json's "executor".
nlohmann::json executor_json(const SlurmArgs& a, std::size_t shards,
                             const std::filesystem::path& plan);

// The argv of an array task: this process's own command line (/proc/self/cmdline) with the
// options that concern the submitter (--executor, --partition, --out, --resume, --json, …)
// taken out, and the shard's own appended. Exposed for tests.
std::vector<std::string> shard_argv(const std::vector<std::string>& own_argv,
                                    const std::filesystem::path& plan, int shard,
                                    const std::filesystem::path& shard_out);

}  // namespace kjudge::slurm
