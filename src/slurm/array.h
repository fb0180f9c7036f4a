#pragma once
// The shards of one run in Slurm: submitted as job arrays (array index = shard index), followed
// with squeue/scontrol, resubmitted when they end without a complete journal, until every
// shard is done or given up. Shards may be added while others run: `kjudge run --executor
// slurm` cuts a shard whenever enough answers have arrived. Used by the submitter only; an
// array task is a plain local run (plan/local_executor.cpp, --shard-of).
#include <atomic>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/atomic_file.h"  // write_file_atomically: other nodes may write the same file
#include "eval/graded.h"
#include "eval/journal.h"
#include "slurm/executor.h"

namespace kjudge::slurm {

// A shard journal's records in file order, dropping a torn last line.
std::vector<GradedSolution> read_shard_journal(const std::filesystem::path& p);
// A perf.jsonl's records by key, in file order (first wins), dropping a torn last line.
std::vector<nlohmann::json> read_perf_lines(const std::filesystem::path& p);
nlohmann::json read_json_file(const std::filesystem::path& p);

class ShardArray {
 public:
  struct Options {
    std::filesystem::path out;  // the run directory (absolute)
    SlurmArgs slurm;
    std::string job_name = "kjudge";
    bool quiet = false;
    // --benchmark: a shard is done only when its passing solutions are timed too.
    bool benchmark = false;
  };
  struct Counts {
    int done = 0, running = 0, pending = 0, lost = 0;
    std::size_t graded = 0, total = 0;
  };
  explicit ShardArray(Options o);

  // A new shard grading `keys` with `argv`; returns its index. Submitted by submit_new().
  std::size_t add(std::vector<SolutionKey> keys, std::vector<std::string> argv);
  // Submits, as one array, the shards added since the last call whose journal is not yet
  // complete (a resumed run skips finished ones). Throws std::runtime_error when sbatch fails.
  void submit_new(const std::string& why);
  // One round: asks Slurm, resubmits shards that ended incomplete (at most --shard-retries
  // times each), prints a progress line when it changed.
  Counts poll();
  // scancel of every array that still has live shards (Ctrl-C).
  void cancel();

  std::size_t size() const { return shards_.size(); }
  const std::vector<SolutionKey>& keys(std::size_t i) const { return shards_[i].keys; }
  bool given_up(std::size_t i) const { return shards_[i].given_up; }
  const std::string& last_state(std::size_t i) const { return shards_[i].last_state; }
  int attempts(std::size_t i) const { return shards_[i].attempts; }
  std::filesystem::path shard_dir(std::size_t i) const;
  const nlohmann::json& submissions() const { return submissions_; }
  int resubmitted() const;

 private:
  struct Shard {
    std::vector<SolutionKey> keys;
    std::vector<std::string> argv;
    int attempts = 0;
    std::string job;  // the array job id of its latest submission
    bool submitted = false;
    bool seen = false;      // the latest submission has been listed by squeue/scontrol
    bool done = false;      // its journal holds every key (and perf.jsonl every pass's timing)
    bool given_up = false;  // lost more often than --shard-retries allows
    std::string last_state;
    std::chrono::steady_clock::time_point submitted_at;
  };
  bool complete(std::size_t i) const;
  std::size_t graded(std::size_t i) const;
  void submit(const std::vector<int>& idx, const std::string& why);

  Options o_;
  std::vector<Shard> shards_;
  nlohmann::json submissions_ = nlohmann::json::array();
  std::string last_line_;
};

}  // namespace kjudge::slurm
