// `kjudge run --kernelbench`: its options and their mapping (cli/run_kernelbench.h).
#include "cli/run_kernelbench.h"

#include <fmt/format.h>

#include "cli/kernelbench_table.h"
#include "cli/step_options.h"
#include "core/error.h"
#include "plan/run_kernelbench.h"

namespace kjudge {
namespace {

constexpr const char* kGroup = "KernelBench (with --kernelbench)";

// Options of `kjudge run` that mean something only for a ComputeEval pack: given with
// --kernelbench they would be silently ignored, so they are refused.
constexpr const char* kComputeEvalOnly[] = {"--problems",
                                            "--release",
                                            "--datasets",
                                            "-k",
                                            "--tests-per-gpu",
                                            "--work-dir",
                                            "--keep-workspaces",
                                            "--skip-env-check",
                                            "--retries",
                                            "--no-quiet-retry",
                                            "--strict-timeouts",
                                            "--build-only",
                                            "--benchmark",
                                            "--runs",
                                            "--warmups",
                                            "--no-baseline-check",
                                            "--repeat",
                                            "--sanitize",
                                            "--memcheck",
                                            "--sanitizer",
                                            "--sanitize-timeout",
                                            "--executor",
                                            "--partition",
                                            "--gpus-per-task",
                                            "--max-parallel",
                                            "--sbatch-arg",
                                            "--shards",
                                            "--shard-size",
                                            "--shard-wait",
                                            "--difficulty",
                                            "--turns"};

std::size_t option_count(CLI::App* app, const std::string& name) {
  const CLI::Option* o = app->get_option_no_throw(name);
  return o ? o->count() : 0;
}

}  // namespace

void add_kernelbench_run_options(CLI::App* r, KernelBenchRunArgs& k) {
  add_kernelbench_generate_options(
      r, k.kb, "judges each answer as it arrives (results.jsonl, summary.json)");
  r->get_option("--kernelbench")->group(kGroup);
  r->get_option("--level")->group(kGroup);
  // kjudge run's own --profiler names the same library.
  add_kernelbench_judge_options(r, k.judge, kGroup, /*with_profiler=*/false);
  r->footer(
      "With --kernelbench DIR: --workers is the solutions judged at once (default 4), --gpus one "
      "GPU index, --cache-dir and --no-cache the extension cache, --task a KernelBench problem "
      "(L1/19); ComputeEval's options (-k, --benchmark, --repeat, --sanitize, --executor ...) "
      "are refused (docs/kernelbench.md)");
}

bool run_kernelbench_if_asked(CLI::App* r, const plan::RunOptions& rn, KernelBenchRunArgs& k,
                              int& rc) {
  if (k.kb.dir.empty()) {
    for (const CLI::Option* o : r->get_options())
      if (o->get_group() == kGroup && o->count() > 0)
        throw Error(exit_code::usage, o->get_name() + " is an option of --kernelbench");
    return false;
  }
  for (const char* name : kComputeEvalOnly)
    if (option_count(r, name) > 0)
      throw Error(exit_code::usage,
                  std::string(name) + " is not an option of kjudge run --kernelbench");
  if (rn.gpus.size() > 1)
    throw Error(exit_code::usage,
                "--gpus: kjudge run --kernelbench runs on one GPU (give one index)");
  apply_kernelbench_judge_options(k.judge);

  plan::KernelBenchRunOptions o;
  o.gen = *rn.gen;
  o.gen.out = rn.out;
  o.gen.resume = rn.resume;
  o.gen.filter = rn.filter;
  o.kernelbench = k.kb;
  o.judge = k.judge;
  if (rn.workers > 0) o.judge.workers = rn.workers;
  if (!rn.gpus.empty()) o.judge.gpu = rn.gpus.front();
  o.judge.cache_dir = rn.cache_dir;
  o.judge.no_cache = rn.no_cache;
  o.judge.profiler = rn.profiler;
  o.judge.quiet = rn.quiet;
  const ResolvedSteps steps = resolve_step_options(rn.steps, rn.log_cap);
  o.sandbox = {steps.settings, steps.mode, steps.limits_how};
  const kernelbench::Note note = [](const std::string& line) { fmt::print(stderr, "{}\n", line); };
  const plan::KernelBenchRunDone done = plan::run_kernelbench(o, note);
  if (rn.json) {
    fmt::print("{}\n", done.summary.dump(2));
  } else if (!rn.quiet) {
    print_kernelbench_table(done.summary);
    fmt::print("results: {}\n", done.results.string());
  }
  rc = done.rc;
  return true;
}

}  // namespace kjudge
