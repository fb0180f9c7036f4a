#pragma once
// The pure half of running kjudge over a Slurm job array: the sbatch command line and batch
// script for a set of shards, and the parsing of what squeue and `scontrol show job` say about
// the array's tasks. Nothing here runs a process, so all of it is tested without a cluster
// (tests/slurm/fixtures holds output captured from the real Slurm 22.05 of Debian 12).
//
// The test cluster, like many small clusters, has no slurmdbd, so sacct is not available:
// states come from squeue (`-t all` also lists finished tasks) and `scontrol show job -o`,
// both of which forget a job MinJobAge seconds after it ends (300 by default). A task that
// neither lists any more must be judged by what it left in the run directory.
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/shell_quote.h"  // shell_quote, for the batch script

namespace kjudge::slurm {

enum class TaskState {
  Pending,
  Running,  // also CONFIGURING, COMPLETING, SIGNALING, STAGE_OUT: still on a node
  Suspended,
  Requeued,  // REQUEUED, REQUEUE_HOLD, REQUEUE_FED: Slurm will run it again
  Completed,
  Failed,  // FAILED, SPECIAL_EXIT
  Cancelled,
  Timeout,
  OutOfMemory,
  Deadline,
  NodeFail,
  Preempted,
  BootFail,
  Unknown,  // a state this parser does not know; not terminal, so the caller keeps waiting
};

// "COMPLETED", "CANCELLED by 0" (sacct), "CANCELLED+" (truncated columns) all parse.
TaskState parse_state(std::string_view s);
std::string_view state_name(TaskState s);
// True once the task will not run again without a new submission.
bool is_terminal(TaskState s);

enum class Failure {
  None,     // completed, or not finished yet
  Machine,  // the node or the cluster failed the task (NODE_FAIL, PREEMPTED, BOOT_FAIL):
            // resubmit the shard; its solutions are never charged with a model verdict
  Job,      // the task itself ended badly (non-zero exit, timeout, OOM, cancelled)
};
Failure classify(TaskState s);

struct SubmitOptions {
  std::string partition;                // empty: the cluster's default partition
  int gpus_per_task = 0;                // 0: no GPU request (host-only problems)
  int max_parallel = 0;                 // 0: no limit on array tasks running at once
  std::vector<std::string> extra_args;  // --sbatch-arg values, passed through verbatim
  std::string job_name = "kjudge";
  std::filesystem::path run_dir;  // shared by submitter and nodes; logs go under slurm/
  std::string log_name = "shard-%a.job-%A.out";  // under run_dir/slurm/
  // false (shards): kjudge resubmits lost shards itself. true (service workers): a worker
  // Slurm restarts after a node failure keeps its id and takes back the jobs it held.
  bool requeue = false;
};

// "0-3,5,7-8%2": the indices (any order, duplicates allowed) compressed into ranges, with the
// throttle when max_parallel > 0. Throws std::invalid_argument for no or negative indices.
std::string array_spec(std::vector<int> indices, int max_parallel);

// Where array task `index` of a submission writes stdout and stderr, with Slurm's %A (the
// array's job id) left in, so a resubmitted shard does not overwrite its earlier log.
std::filesystem::path task_log_pattern(const std::filesystem::path& run_dir,
                                       const std::string& log_name = "shard-%a.job-%A.out");

// The sbatch argv that submits `indices` of the array described by `script`. The user's
// extra_args come after kjudge's own options, so (sbatch taking the last of a repeated option)
// they can override any of them.
std::vector<std::string> sbatch_argv(const SubmitOptions& o, const std::vector<int>& indices,
                                     const std::filesystem::path& script);

// The batch script: array task i execs shard_commands[i]. Each command is an argv, quoted for
// bash here, so paths with spaces or quotes survive.
std::string batch_script(const std::vector<std::vector<std::string>>& shard_commands);

// The job id from `sbatch --parsable` output ("1234" or "1234;cluster", maybe with a trailing
// newline). Throws std::runtime_error when the output is not that.
std::string parse_sbatch_job_id(std::string_view out);

// "3", "2-5%2", "1,3-4", "[0-7]" -> the indices. Throws std::invalid_argument on garbage.
std::vector<int> expand_indices(std::string_view spec);

struct ArrayTask {
  int index = -1;
  TaskState state = TaskState::Unknown;
  std::string raw_state;  // as Slurm printed it
  std::string reason;     // e.g. NonZeroExitCode, JobArrayTaskLimit, None
  std::string exit_code;  // "code:signal" (scontrol only)
  int restarts = 0;       // times Slurm itself requeued it (scontrol only)
};

// The argv for the two status queries the parsers below read.
std::vector<std::string> squeue_argv(const std::string& array_job_id);
std::vector<std::string> scontrol_argv(const std::string& array_job_id);

// squeue -h -r -t all -j ID -o '%i|%T|%r' (squeue_argv): "6_4|COMPLETED|None", or a
// collapsed pending line "6_[2-5%2]|PENDING|JobArrayTaskLimit". Lines of other jobs are
// skipped; where an index appears twice the later line wins.
std::map<int, ArrayTask> parse_squeue(std::string_view text, std::string_view array_job_id);

// scontrol show job -o ID (scontrol_argv): one line per task, plus one for the tasks still
// pending together ("ArrayTaskId=2-5%2"). Error text (a job Slurm has forgotten) yields none.
std::map<int, ArrayTask> parse_scontrol(std::string_view text, std::string_view array_job_id);

}  // namespace kjudge::slurm
