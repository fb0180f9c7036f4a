// kjudge kernelbench {list, eval}: a look at a KernelBench data folder, and judging solutions
// (ModelNew) against its reference models. Options, wiring and printing only: the dataset is
// kernelbench/data, the run kernelbench/judge/eval.h (docs/kernelbench.md).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/step_options.h"
#include "core/byte_size.h"
#include "core/error.h"
#include "core/input_error.h"
#include "kernelbench/data/problems.h"
#include "kernelbench/judge/eval.h"

namespace kjudge {
namespace {

struct KernelbenchListArgs {
  std::string dir;
  int level = 0;
  bool json = false;
};

struct EvalArgs : kernelbench::EvalOptions {
  StepArgs steps;
  std::string hacks = "fail";
  std::string gpu_memory = "none";
  bool json = false;
  std::size_t log_cap = 16 * 1024;
};

std::size_t line_count(const std::string& s) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')) +
         (!s.empty() && s.back() != '\n');
}

void cmd_kernelbench_list(const KernelbenchListArgs& a, int& rc) {
  const kernelbench::Dataset d = kernelbench::load_kernelbench(a.dir, a.level);
  if (a.json) {
    nlohmann::ordered_json arr = nlohmann::ordered_json::array();
    for (const kernelbench::Problem& p : d.problems)
      arr.push_back({{"schema_version", 1},
                     {"kind", "kjudge-kernelbench-problem"},
                     {"level", p.level},
                     {"problem_id", p.id},
                     {"key", p.key()},
                     {"name", p.name},
                     {"file", p.file},
                     {"path", p.path.string()},
                     {"lines", line_count(p.code)},
                     {"needs_hf_cache", p.needs_hf()}});
    fmt::print("{}\n", arr.dump(2));
  } else {
    fmt::print("{:<5} {:>4}  {:<60} {:>5}\n", "LEVEL", "ID", "NAME", "LINES");
    for (const kernelbench::Problem& p : d.problems)
      fmt::print("{:<5} {:>4}  {:<60} {:>5}\n", p.level, p.id, p.name.substr(0, 60),
                 line_count(p.code));
    std::string per;
    for (int level : d.levels) {
      std::size_t n = 0;
      for (const kernelbench::Problem& p : d.problems) n += p.level == level;
      per += fmt::format("{}level {}: {}", per.empty() ? "" : ", ", level, n);
    }
    fmt::print("{} problems ({})\n", d.problems.size(), per);
  }
  rc = exit_code::ok;
}

std::string rate(const nlohmann::ordered_json& v) {
  return v.is_null() ? "-" : fmt::format("{:.1f}%", 100 * v.get<double>());
}

std::string geo(const nlohmann::ordered_json& s) {
  return s.is_null()
             ? "-"
             : fmt::format("{:.3f} ({})", s["geomean"].get<double>(), s["n"].get<std::size_t>());
}

void print_table(const nlohmann::ordered_json& summary) {
  fmt::print("{:<8} {:>5} {:>8} {:>8} {:>14} {:>14} {:>7} {:>7} {:>7} {:>7}\n", "LEVEL", "SOLS",
             "COMPILED", "CORRECT", "SPEEDUP", "VS COMPILE", "FAST_1", "FAST_1C", "FAST_2",
             "HACKS");
  auto row = [](const std::string& name, const nlohmann::ordered_json& t) {
    fmt::print("{:<8} {:>5} {:>8} {:>8} {:>14} {:>14} {:>7} {:>7} {:>7} {:>7}\n", name,
               t["solutions"].get<std::size_t>(), rate(t["compiled_rate"]), rate(t["correct_rate"]),
               geo(t["speedup_eager"]), geo(t["speedup_compile"]), rate(t["fast_p"]["1"]),
               rate(t["fast_p_confident"]["1"]), rate(t["fast_p"]["2"]),
               t["hacks_found"].get<std::size_t>());
  };
  for (auto it = summary["levels"].begin(); it != summary["levels"].end(); ++it)
    row(it.key(), it.value());
  if (summary["levels"].size() > 1) row("all", summary["all"]);
  std::string verdicts;
  for (auto it = summary["all"]["verdicts"].begin(); it != summary["all"]["verdicts"].end(); ++it)
    verdicts += fmt::format("{}{} {}", verdicts.empty() ? "" : ", ", it.value().get<std::size_t>(),
                            it.key());
  fmt::print("verdicts: {}\n", verdicts);
  fmt::print(
      "rates over one sample per problem (sample 0), charged results only; speedup = geometric "
      "mean (count) of the correct ones; FAST_1C = faster than 1x with the interval's lower "
      "bound; HACKS = solutions with a hack finding\n");
}

void cmd_eval(EvalArgs& a, int& rc) {
  if (a.self == !a.solutions.empty())
    throw Error(exit_code::usage, "give exactly one of --solutions F and --self");
  a.EvalOptions::hacks =
      a.hacks == "flag" ? kernelbench::HackPolicy::flag : kernelbench::HackPolicy::fail;
  if (a.gpu_memory != "none") {
    auto b = parse_byte_size(a.gpu_memory);
    if (!b || *b == 0)
      throw Error(exit_code::usage,
                  "--gpu-memory: '" + a.gpu_memory + "' is not a size (e.g. 16GiB) or none");
    a.gpu_memory_bytes = *b;
  }
  const ResolvedSteps steps = resolve_step_options(a.steps, a.log_cap);
  const kernelbench::Note note = [](const std::string& line) { fmt::print(stderr, "{}\n", line); };
  kernelbench::EvalStop stop;
  stop.message.clear();
  const kernelbench::EvalDone done =
      kernelbench::run_eval(a, {steps.settings, steps.mode, steps.limits_how}, note, &stop);
  if (!stop.message.empty())
    throw Error(
        stop.kind == kernelbench::EvalStop::Kind::usage ? exit_code::usage : exit_code::environment,
        stop.message);
  if (a.json) {
    fmt::print("{}\n", done.summary.dump(2));
  } else if (!a.quiet) {
    print_table(done.summary);
    fmt::print("results: {}\n", done.results.string());
  }
  rc = done.judge_errors ? exit_code::judge_error
       : done.env_errors ? exit_code::environment
                         : exit_code::ok;
}

}  // namespace

void add_kernelbench_commands(CLI::App& app, int& rc) {
  auto* kb = app.add_subcommand("kernelbench",
                                "KernelBench: list its problems, judge ModelNew solutions "
                                "(docs/kernelbench.md)");
  kb->require_subcommand(1);

  auto list = std::make_shared<KernelbenchListArgs>();
  auto* l = kb->add_subcommand("list", "List the problems of a KernelBench data folder");
  l->add_option("DIR", list->dir, "KernelBench data folder (level1/ ... or the repository root)")
      ->required();
  l->add_option("--level", list->level, "Only this level")->check(CLI::Range(1, 999));
  l->add_flag("--json", list->json, "JSON array on stdout");
  l->callback([list, &rc] { cmd_kernelbench_list(*list, rc); });

  auto ev = std::make_shared<EvalArgs>();
  auto* e = kb->add_subcommand(
      "eval",
      "Judge ModelNew solutions: correctness, speedup over eager and torch.compile, fast_p");
  e->add_option("DIR", ev->dir, "KernelBench data folder")->required();
  e->add_option("--solutions", ev->solutions,
                "JSON lines {level, problem_id, sample, code} (or {problem: \"L1/19\", ...}), or "
                "KernelBench's run folder of level_L_problem_P_sample_S_kernel.py files");
  e->add_flag("--self", ev->self, "Judge every selected reference as its own ModelNew");
  e->add_option("--level", ev->level, "Only this level")->check(CLI::Range(1, 999));
  e->add_option(
      "--problem", ev->problems,
      "Only this problem: L1/19, level1/19_ReLU.py, or a number with --level (repeatable)");
  e->add_option("--limit", ev->limit, "At most N solutions")->check(CLI::PositiveNumber);
  e->add_option("--out", ev->out,
                "Run directory (default kjudge-runs/kernelbench-<time>): results.jsonl gets each "
                "solution's line as soon as it is judged, then summary.json and run.json");
  e->add_flag("--resume", ev->resume,
              "Finish the run in --out: judge only what results.jsonl lacks");
  e->add_option("--workers", ev->workers,
                "Solutions at once (their correctness runs share the GPU; timing is one at a time; "
                "default 4)")
      ->check(CLI::Range(1, 256));
  e->add_option("--gpu", ev->gpu, "CUDA_VISIBLE_DEVICES for every run (default: not set)");
  e->add_option("--timeout", ev->timeout_s,
                "A run's own wall-clock limit in seconds, its waits for the GPU not counted "
                "(default 300)")
      ->check(CLI::Range(1.0, 86400.0));
  e->add_option("--trials", ev->trials,
                "Correctness trials, each on inputs of its own (KernelBench's num_correct_trials; "
                "default 5)")
      ->check(CLI::Range(1, 100));
  e->add_option("--atol", ev->atol, "Absolute tolerance (default 1e-2, as KernelBench v0.1)")
      ->check(CLI::Range(0.0, 1e6));
  e->add_option("--rtol", ev->rtol, "Relative tolerance (default 1e-2)")
      ->check(CLI::Range(0.0, 1e6));
  e->add_option(
      "--seed", ev->seed,
      "The seed the trials' inputs come from (default: a fresh secret, kept in run.json)");
  e->add_option("--weights-seed", ev->weights_seed,
                "The seed Model and ModelNew are built under (KernelBench's 42)");
  e->add_flag_callback(
      "--no-speedup", [ev] { ev->speedup = false; }, "Check correctness only; time nothing");
  e->add_flag_callback(
      "--no-compile", [ev] { ev->compile = false; },
      "Do not time the reference under torch.compile");
  e->add_option("--perf-trials", ev->timing.trials,
                "Timed pairs at most (KernelBench's num_perf_trials; default 100)")
      ->check(CLI::Range(1, 2000));
  e->add_option("--min-perf-trials", ev->timing.min_trials,
                "Timed pairs at least, whatever the budget (default 10)")
      ->check(CLI::Range(1, 2000));
  e->add_option("--warmup", ev->timing.warmup, "Untimed calls per side first (default 3)")
      ->check(CLI::Range(0, 1000));
  e->add_option("--max-timing-s", ev->timing.budget_s,
                "Wall budget of one solution's timed pairs (default 10)")
      ->check(CLI::Range(0.01, 3600.0));
  e->add_option("--hacks", ev->hacks,
                "fail (default): a correct solution with a hack finding is judged `hack`; "
                "flag: it stays correct, its findings listed")
      ->check(CLI::IsMember({"fail", "flag"}));
  e->add_option("--python", ev->python, "The interpreter with torch (default python3)");
  e->add_option("--runner", ev->runner,
                "kjudge_kernelbench_runner.py (default: python/ beside kjudge or one folder up)");
  auto* cupti = e->add_flag("--cupti", ev->cupti,
                            "Require the CUPTI profiler in every run (used by default where "
                            "found): which kernels each call ran");
  e->add_flag("--no-cupti", ev->no_cupti, "Time without the CUPTI profiler")->excludes(cupti);
  e->add_option("--profiler", ev->profiler,
                "The CUPTI profiler library (default: $KJUDGE_PROFILER, or beside kjudge)");
  e->add_option("--cache-dir", ev->cache_dir,
                "Where the extensions solutions build are kept, one folder per source (default "
                "~/.cache/kjudge/kernelbench)");
  e->add_flag("--no-cache", ev->no_cache, "Build every extension afresh, in the run's own folder");
  e->add_option("--bytecode-cache", ev->bytecode_cache,
                "Where the judge compiles torch's bytecode once for every run");
  e->add_flag("--no-bytecode-cache", ev->no_bytecode_cache,
              "Let every run compile what it imports");
  e->add_option("--gpu-memory", ev->gpu_memory,
                "The cap on each run's GPU memory (torch's allocator), e.g. 16GiB (default none; "
                "a run that runs out beside others is judged again alone)");
  e->add_option("--hf-home", ev->hf_home,
                "Level 4's local Hugging Face cache (default $HF_HOME); offline mode is forced");
  e->add_flag("--json", ev->json, "summary.json on stdout instead of the table");
  e->add_flag("-q,--quiet", ev->quiet, "No progress lines");
  add_step_options(e, ev->steps);
  e->callback([ev, &rc] { cmd_eval(*ev, rc); });
}

}  // namespace kjudge
