// --executor slurm's options (docs/slurm.md), kept out of src/slurm so that the engine does not
// depend on CLI11.
#include "cli/slurm_options.h"

#include "cli/option_ranges.h"

namespace kjudge {

void add_slurm_options(CLI::App* c, slurm::SlurmArgs& a) {
  c->add_option("--executor", a.executor,
                "local (default): grade on this machine; slurm: one Slurm job array over shards "
                "of the run (docs/slurm.md)")
      ->check(CLI::IsMember({"local", "slurm"}));
  c->add_option("--partition", a.partition, "Slurm partition (default: the cluster's default)");
  c->add_option("--gpus-per-task", a.gpus_per_task,
                "GPUs each array task asks for (--gres=gpu:N); 0 (default): none, for "
                "host-only problems")
      ->check(CLI::Range(0, 64));
  c->add_option("--max-parallel", a.max_parallel,
                "Array tasks running at once (sbatch --array=…%M); 0: no limit")
      ->check(CLI::Range(0, 100000));
  c->add_option("--sbatch-arg", a.sbatch_args,
                "Passed to sbatch verbatim, after kjudge's own options (repeatable), e.g. "
                "--sbatch-arg=--time=2:00:00")
      ->allow_extra_args(false);
  c->add_option("--shards", a.shards, "Shards (array tasks) of the run (default: min(jobs, 16))")
      ->check(CLI::Range(0, 100000));
  c->add_option("--shard-retries", a.shard_retries,
                "Resubmissions of a shard lost to the machine before its jobs become "
                "judge_error (default 3)")
      ->check(CLI::Range(0, 100));
  c->add_option("--slurm-poll", a.poll_s, "Seconds between squeue/scontrol polls (default 2)")
      ->check(finite_range(0.1, 3600));
  c->add_option("--shard-size", a.shard_size,
                "kjudge run: answers per shard; a shard is submitted once this many are waiting "
                "(default 16)")
      ->check(CLI::Range(1, 100000));
  c->add_option("--shard-wait", a.shard_wait_s,
                "kjudge run: seconds an answer waits at most before a smaller shard is "
                "submitted (default 60)")
      ->check(finite_range(0, 86400));
  // What the submitter gives each array task; not for people.
  c->add_option("--shard-of", a.shard_of)->group("");
  c->add_option("--shard", a.shard)->group("");
}

}  // namespace kjudge
