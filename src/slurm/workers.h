#pragma once
// `kjudge serve --workers-only` as Slurm jobs: `--slurm-workers N` submits one job array of N
// tasks, each running this same serve command as a worker (no HTTP) that pulls from the shared
// PostgreSQL queue, and returns. Workers are named after their array task (worker_id_from_env),
// so a task Slurm requeues after a node failure takes back the jobs it held.
#include <filesystem>
#include <string>
#include <vector>

namespace kjudge::slurm {

struct SlurmWorkersArgs {
  int count = 0;  // --slurm-workers N
  std::string partition;
  int gpus_per_task = 0;
  std::vector<std::string> sbatch_args;
  std::string log_dir = "kjudge-workers";
};

// "slurm-<array job>-<task>" in an array task, "slurm-<job>" in a plain job, else
// "<host>-<pid>": unique among the workers sharing a queue. ('_' is avoided: the queue matches
// worker ids with LIKE, where it is a wildcard.)
std::string worker_id_from_env();

// The argv of a worker task: `own` (this process's command line) without the submitting
// options, with --workers-only and the hidden --slurm-worker-task (a task never submits
// workers itself). Exposed for tests.
std::vector<std::string> worker_argv(const std::vector<std::string>& own);

// Writes LOG_DIR/slurm/workers-<time>.sh and submits it as an array of `count` tasks; prints
// the job id on stdout. Throws std::runtime_error when sbatch fails.
void submit_slurm_workers(const SlurmWorkersArgs& a, const std::vector<std::string>& own);

}  // namespace kjudge::slurm
