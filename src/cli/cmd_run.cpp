// kjudge validate, evaluate and run: their options, and the run planned and carried out by the
// engine (src/plan: plan_run, then execute, which ends in the one summary writer).
#include <memory>
#include <string>

#include "cli/commands.h"
#include "cli/computeeval_options.h"
#include "cli/evaluate_triton.h"
#include "cli/generation_session.h"
#include "cli/load.h"
#include "cli/option_ranges.h"
#include "cli/release_options.h"
#include "cli/run_kernelbench.h"
#include "cli/sanitizer_options.h"
#include "cli/slurm_options.h"
#include "cli/step_options.h"
#include "core/input_error.h"
#include "core/solution_packs.h"
#include "plan/execute.h"
#include "plan/pack_runs.h"
#include "plan/run_plan.h"

namespace kjudge {

namespace {

int run_command(const std::string& command, const plan::RunOptions& options) {
  plan::RunPlan p = plan::plan_run(command, options);
  return plan::execute(p);
}

void add_run_options(CLI::App* c, plan::RunOptions& a) {
  c->add_option_function<std::vector<int>>(
       "-k",
       [&a](const std::vector<int>& ks) {
         a.ks = ks;
         a.ks_given = true;
       },
       "pass@k values, e.g. -k 1,3,10 (default 1; --resume keeps the run's own)")
      ->delimiter(',')
      ->check(CLI::Range(1, 1000000));
  c->add_option("--out", a.out,
                "Run directory (results.jsonl, summary.json, run.json); "
                "default kjudge-runs/<command>-<time>");
  c->add_flag("--resume", a.resume, "Finish the run in --out: grade only what its journal lacks");
  add_filter_options(c, a.filter);
  c->add_option("--workers", a.workers, "Parallel builds (default: one per CPU)")
      ->check(CLI::Range(0, 4096));
  c->add_option("--tests-per-gpu", a.tests_per_gpu, "Correctness runs sharing one GPU (default 4)")
      ->check(CLI::Range(1, 256));
  c->add_option("--gpus", a.gpus, "GPU indices to use (default: all)")->delimiter(',');
  c->add_flag("--no-cache", a.no_cache, "Build everything; neither read nor write the build cache");
  c->add_option("--cache-dir", a.cache_dir,
                "Build cache (default $KJUDGE_CACHE_DIR or ~/.cache/kjudge)");
  c->add_option("--work-dir", a.work_dir, "Where workspaces are made (default: a temp dir)");
  c->add_flag("--keep-workspaces", a.keep_workspaces, "Leave each solution's workspace on disk");
  c->add_flag("--skip-env-check", a.skip_env_check, "Run even if `kjudge doctor` finds a failure");
  c->add_flag("--json", a.json, "Print the summary JSON on stdout");
  c->add_flag("-q,--quiet", a.quiet, "No progress and no summary table on stderr");
  c->add_option("--log-cap", a.log_cap, "Bytes of each build/test log kept (default 16384)")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 30));
  c->add_option("--retries", a.retries, "Retries of a judge_error (default 2)")
      ->check(CLI::Range(0, 100));
  add_step_options(c, a.steps);
  add_slurm_options(c, a.slurm);
  c->add_flag("--build-only", a.build_only,
              "Build every solution and stop (no GPU needed): 'pass' means it built and was "
              "not refused; no test runs");
  c->add_flag("--no-baseline-check", a.no_baseline_check,
              "evaluate: do not judge each problem's own baseline first (by default a "
              "problem whose baseline fails here is skipped, and a limit its baseline nearly "
              "needs is scaled)");
  c->add_flag("--benchmark", a.benchmark,
              "After the tests: time every passing solution's benchmark_command against the "
              "problem's baseline, interleaved on a GPU held alone (perf.jsonl)");
  c->add_option("--runs", a.runs, "Timed runs per side with --benchmark (default 5)")
      ->check(CLI::Range(1, 1000));
  c->add_option("--warmups", a.warmups, "Discarded runs per side first (default 1)")
      ->check(CLI::Range(0, 100));
  c->add_option("--profiler", a.profiler,
                "The profiler library (default: $KJUDGE_PROFILER, or libkjudge_profiler.so "
                "beside kjudge)");
  c->add_flag("--no-quiet-retry", a.no_quiet_retry,
              "Take a timeout under load as final instead of retrying it on a quiet machine");
  c->add_flag("--strict-timeouts", a.strict_timeouts,
              "Retry every timeout seen under load on a quiet machine, not only those the "
              "evidence (time lost to the machine, the baseline's test time) leaves in doubt");
  // "Luck does not pass" (issue 34; README).
  c->add_option("--repeat", a.repeat,
                "Run each test N times: a solution passes only if every run passes; solutions "
                "whose runs disagree are reported as flaky (default 1)")
      ->check(CLI::Range(1, 100));
  add_sanitizer_options(c, a.sanitize, a.memcheck, a.sanitizer);
  c->add_option("--sanitize-timeout", a.sanitize_timeout,
                "A compute-sanitizer run may take this many times the problem's timeout "
                "(default 10); past it the run is a judge_error, never the solution's")
      ->check(finite_range(1, 1000));
}

}  // namespace

void add_run_commands(CLI::App& app, int& rc) {
  auto val = std::make_shared<plan::RunOptions>();
  auto* v = app.add_subcommand("validate",
                               "Evaluate every problem's baseline solution (the "
                               "benchmark's own integrity check)");
  auto vrel = std::make_shared<ReleaseArgs>();
  v->add_option("PACK", val->problems,
                "Problems pack, problems.jsonl or problem directories (or --release)");
  add_release_options(v, *vrel);
  add_run_options(v, *val);
  v->callback([val, vrel, &rc] {
    apply_release(*vrel, val->problems, "PACK");
    rc = run_command("validate", *val);
  });

  auto ev = std::make_shared<plan::RunOptions>();
  auto* e = app.add_subcommand("evaluate", "Evaluate model solutions against the hidden tests");
  auto erel = std::make_shared<ReleaseArgs>();
  e->add_option("--problems", ev->problems,
                "Problems pack, problems.jsonl or problem directories (or --release)");
  add_release_options(e, *erel);
  e->add_option("--solutions", ev->solutions,
                "Solutions pack, solutions.jsonl or solution directories; or a folder of packs "
                "(NAME-solutions.tar.gz, NAME-solutions.jsonl), each evaluated into --out/NAME");
  add_run_options(e, *ev);
  auto ce = std::make_shared<ComputeEvalArgs>();
  add_computeeval_aliases(e, *ev, *ce);
  e->footer(
      "ComputeEval's option names work too (--solutions_datapack, --k, --n_workers, ...): "
      "docs/computeeval.md");
  e->callback([ev, erel, ce, e, &rc] {
    // Not required() in CLI11's sense: ComputeEval's name of the option may give it instead.
    if (ev->solutions.empty())
      throw InputError("--solutions", 0, "",
                       "name the solutions: a pack, a solutions.jsonl, solution directories or a "
                       "folder of packs (ComputeEval's --solutions_datapack)");
    apply_computeeval_aliases(*ce, *ev, *erel);
    apply_release(*erel, ev->problems, "--problems");
    // A TritonBench folder and a Triton solutions pack: the Triton judge (docs/triton.md).
    if (triton::is_triton_evaluation(ev->problems, ev->solutions)) {
      rc = evaluate_triton_pack(*e);
      return;
    }
    // A folder of solution packs (ComputeEval 2026.1's several models at once): a run per pack.
    if (auto packs = list_solution_packs(ev->solutions); !packs.empty()) {
      rc = plan::evaluate_each_pack(*ev, packs);
      return;
    }
    rc = run_command("evaluate", *ev);
  });

  auto rn = std::make_shared<plan::RunOptions>();
  rn->gen = std::make_shared<plan::GenArgs>();
  auto* r = app.add_subcommand("run",
                               "Generate solutions with a model and grade each answer as it "
                               "arrives (generate + evaluate in one pipeline; a ComputeEval "
                               "pack, or KernelBench with --kernelbench)");
  auto rrel = std::make_shared<ReleaseArgs>();
  r->add_option("--problems", rn->problems,
                "Problems pack, problems.jsonl or problem directories (or --release)");
  add_release_options(r, *rrel);
  add_model_options(r, *rn->gen, /*standalone=*/false);
  add_run_options(r, *rn);
  auto kb = std::make_shared<KernelBenchRunArgs>();
  add_kernelbench_run_options(r, *kb);
  r->callback([rn, rrel, kb, r, &rc] {
    if (run_kernelbench_if_asked(r, *rn, *kb, rc)) return;
    apply_release(*rrel, rn->problems, "--problems");
    rc = run_command("run", *rn);
  });
}

}  // namespace kjudge
