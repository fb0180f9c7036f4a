// kjudge kernelbench {list, eval}: a look at a KernelBench data folder, and judging solutions
// (ModelNew) against its reference models. Options, wiring and printing only: the dataset is
// kernelbench/data, the run kernelbench/judge/eval.h (docs/kernelbench.md).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/kernelbench_options.h"
#include "cli/kernelbench_table.h"
#include "cli/step_options.h"
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

struct EvalArgs : KernelBenchJudgeArgs {
  StepArgs steps;
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

void cmd_eval(EvalArgs& a, int& rc) {
  if (a.self == !a.solutions.empty())
    throw Error(exit_code::usage, "give exactly one of --solutions F and --self");
  apply_kernelbench_judge_options(a);
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
    print_kernelbench_table(done.summary);
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
  e->add_option(
      "--seed", ev->seed,
      "The seed the trials' inputs come from (default: a fresh secret, kept in run.json)");
  e->add_option("--cache-dir", ev->cache_dir,
                "Where the extensions solutions build are kept, one folder per source (default "
                "~/.cache/kjudge/kernelbench)");
  e->add_flag("--no-cache", ev->no_cache, "Build every extension afresh, in the run's own folder");
  e->add_flag("--json", ev->json, "summary.json on stdout instead of the table");
  e->add_flag("-q,--quiet", ev->quiet, "No progress lines");
  add_kernelbench_judge_options(e, *ev, "", /*with_profiler=*/true);
  add_step_options(e, ev->steps);
  e->callback([ev, &rc] { cmd_eval(*ev, rc); });
}

}  // namespace kjudge
