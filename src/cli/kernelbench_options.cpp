// The KernelBench judging options (cli/kernelbench_options.h).
#include "cli/kernelbench_options.h"

#include "core/byte_size.h"
#include "core/error.h"

namespace kjudge {

void add_kernelbench_judge_options(CLI::App* e, KernelBenchJudgeArgs& a, const std::string& group,
                                   bool with_profiler) {
  std::vector<CLI::Option*> added;
  auto* ev = &a;
  added.push_back(
      e->add_option("--timeout", a.timeout_s,
                    "A run's own wall-clock limit in seconds, its waits for the GPU not counted "
                    "(default 300)")
          ->check(CLI::Range(1.0, 86400.0)));
  added.push_back(e->add_option("--trials", a.trials,
                                "Correctness trials, each on inputs of its own (KernelBench's "
                                "num_correct_trials; default 5)")
                      ->check(CLI::Range(1, 100)));
  added.push_back(
      e->add_option("--atol", a.atol, "Absolute tolerance (default 1e-2, as KernelBench v0.1)")
          ->check(CLI::Range(0.0, 1e6)));
  added.push_back(e->add_option("--rtol", a.rtol, "Relative tolerance (default 1e-2)")
                      ->check(CLI::Range(0.0, 1e6)));
  added.push_back(e->add_option("--weights-seed", a.weights_seed,
                                "The seed Model and ModelNew are built under (KernelBench's 42)"));
  added.push_back(e->add_flag_callback(
      "--no-speedup", [ev] { ev->speedup = false; }, "Check correctness only; time nothing"));
  added.push_back(e->add_flag_callback(
      "--no-compile", [ev] { ev->compile = false; },
      "Do not time the reference under torch.compile"));
  added.push_back(e->add_option("--perf-trials", a.timing.trials,
                                "Timed pairs at most (KernelBench's num_perf_trials; default 100)")
                      ->check(CLI::Range(1, 2000)));
  added.push_back(e->add_option("--min-perf-trials", a.timing.min_trials,
                                "Timed pairs at least, whatever the budget (default 10)")
                      ->check(CLI::Range(1, 2000)));
  added.push_back(
      e->add_option("--warmup", a.timing.warmup, "Untimed calls per side first (default 3)")
          ->check(CLI::Range(0, 1000)));
  added.push_back(e->add_option("--max-timing-s", a.timing.budget_s,
                                "Wall budget of one solution's timed pairs (default 10)")
                      ->check(CLI::Range(0.01, 3600.0)));
  added.push_back(e->add_option("--hacks", a.hacks_text,
                                "fail (default): a correct solution with a hack finding is judged "
                                "`hack`; flag: it stays correct, its findings listed")
                      ->check(CLI::IsMember({"fail", "flag"})));
  added.push_back(
      e->add_option("--python", a.python, "The interpreter with torch (default python3)"));
  added.push_back(
      e->add_option("--runner", a.runner,
                    "kjudge_kernelbench_runner.py (default: python/ beside kjudge or one folder "
                    "up)"));
  auto* cupti = e->add_flag("--cupti", a.cupti,
                            "Require the CUPTI profiler in every run (used by default where "
                            "found): which kernels each call ran");
  added.push_back(cupti);
  added.push_back(
      e->add_flag("--no-cupti", a.no_cupti, "Time without the CUPTI profiler")->excludes(cupti));
  if (with_profiler)
    added.push_back(
        e->add_option("--profiler", a.profiler,
                      "The CUPTI profiler library (default: $KJUDGE_PROFILER, or beside kjudge)"));
  added.push_back(e->add_option("--bytecode-cache", a.bytecode_cache,
                                "Where the judge compiles torch's bytecode once for every run"));
  added.push_back(e->add_flag("--no-bytecode-cache", a.no_bytecode_cache,
                              "Let every run compile what it imports"));
  added.push_back(e->add_option(
      "--gpu-memory", a.gpu_memory,
      "The cap on each run's GPU memory (torch's allocator), e.g. 16GiB (default none; a run "
      "that runs out beside others is judged again alone)"));
  added.push_back(
      e->add_option("--hf-home", a.hf_home,
                    "Level 4's local Hugging Face cache (default $HF_HOME); offline mode is "
                    "forced"));
  if (!group.empty())
    for (CLI::Option* o : added) o->group(group);
}

void apply_kernelbench_judge_options(KernelBenchJudgeArgs& a) {
  a.hacks = a.hacks_text == "flag" ? kernelbench::HackPolicy::flag : kernelbench::HackPolicy::fail;
  if (a.gpu_memory != "none") {
    auto b = parse_byte_size(a.gpu_memory);
    if (!b || *b == 0)
      throw Error(exit_code::usage,
                  "--gpu-memory: '" + a.gpu_memory + "' is not a size (e.g. 16GiB) or none");
    a.gpu_memory_bytes = *b;
  }
}

}  // namespace kjudge
