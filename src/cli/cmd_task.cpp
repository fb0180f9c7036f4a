// kjudge task run | build: a GPU MODE-style task folder with one submission (issue 6).
#include <fmt/format.h>

#include <filesystem>
#include <optional>

#include "cli/commands.h"
#include "cli/option_ranges.h"
#include "cli/step_options.h"
#include "core/error.h"
#include "task/build.h"
#include "task/session.h"

namespace kjudge {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct TaskArgs {
  std::string folder, submission, mode = "test", out, arch, ncu = "ncu";
  int gpu = 0;
  std::optional<std::uint64_t> secret_seed;
  bool json = false, quiet = false, keep_workspace = false, no_cache = false;
  // Isolated unless --no-isolate (docs/tasks.md, "Isolated runs"); the option tells whether
  // the user chose, so that a mode which cannot be isolated overrides only the default quietly.
  bool isolate = true;
  const CLI::Option* isolate_option = nullptr;
  std::string cache_dir, timing = "kjudge", placement = "arena", harness = "kjudge", python;
  double max_time = 0, target_error = 0, gpu_wait = 600;
  int max_runs = 0, min_runs = 0, profile_case = -1;
  std::size_t log_cap = 64 * 1024;
  StepArgs steps;
};

std::string us(double v) {
  if (v >= 1e4) return fmt::format("{:.0f}", v);
  if (v >= 100) return fmt::format("{:.1f}", v);
  return fmt::format("{:.2f}", v);
}

void print_kernels(const task::TaskBuild& b) {
  if (b.kernels.empty()) return;
  fmt::print(stderr, "  ptxas ({}):\n", b.arch);
  for (const auto& k : b.kernels)
    fmt::print(stderr,
               "    {:<48} {:>3} regs  {:>6} B smem  {:>4} B stack  spills {} B st / {} B ld\n",
               k.name.size() > 48 ? k.name.substr(0, 45) + "..." : k.name, k.registers,
               k.shared_bytes, k.stack_bytes, k.spill_store_bytes, k.spill_load_bytes);
}

void print_stage(const json& s) {
  fmt::print(
      stderr, "  {}: {}{}\n", s["mode"].get<std::string>(),
      s["passed"].get<bool>() ? "passed" : "FAILED",
      s["failure"].get<std::string>().empty() ? "" : " - " + s["failure"].get<std::string>());
  if (s.contains("tests"))
    for (const auto& t : s["tests"])
      fmt::print(stderr, "    {:<4} {}{}\n", t["status"].get<std::string>(),
                 t["spec"].get<std::string>(),
                 t.contains("error") ? "\n         " + t["error"].get<std::string>() : "");
  if (s.contains("benchmarks")) {
    fmt::print(stderr, "    {:<34} {:>5} {:>10} {:>10} {:>9} {:>7} {:>10} {:>10} {:>10}\n",
               "benchmark", "runs", "mean µs", "median µs", "std µs", "err %", "best µs",
               "worst µs", "host µs");
    for (const auto& b : s["benchmarks"]) {
      if (b["status"] != "pass") {
        fmt::print(stderr, "    {:<34} FAILED: {}\n", b["spec"].get<std::string>(),
                   b.value("error", std::string()));
        continue;
      }
      // The task's own harness reports no median nor host time, and may leave out any figure.
      auto fig = [&](const char* key) {
        return b.contains(key) && b[key].is_number() ? us(b[key].get<double>()) : std::string("-");
      };
      fmt::print(stderr, "    {:<34} {:>5} {:>10} {:>10} {:>9} {:>7.3f} {:>10} {:>10} {:>10}\n",
                 b["spec"].get<std::string>(), b.value("runs", 0), fig("mean_us"), fig("median_us"),
                 fig("std_us"),
                 b.contains("rel_err") && b["rel_err"].is_number()
                     ? 100 * b["rel_err"].get<double>()
                     : 0.0,
                 fig("best_us"), fig("worst_us"), fig("host_mean_us"));
    }
    if (s.contains("score_us"))
      fmt::print(stderr, "    score ({} of benchmark means): {} µs\n",
                 s["ranking_by"].get<std::string>(), us(s["score_us"]));
  }
  if (s.contains("profile") && s["profile"].is_array())
    for (const auto& k : s["profile"]) {
      fmt::print(stderr, "    kernel {} (grid {}, block {})\n", k.value("kernel", std::string()),
                 k.value("grid", std::string()), k.value("block", std::string()));
      for (const char* key :
           {"duration", "compute_throughput_pct", "memory_throughput_pct", "dram_throughput_pct",
            "achieved_occupancy_pct", "theoretical_occupancy_pct", "registers_per_thread",
            "static_shared_bytes", "dynamic_shared_bytes", "waves_per_sm"})
        if (k.contains(key))
          fmt::print(stderr, "      {:<26} {} {}\n", key, k[key].dump(),
                     k.value(std::string(key) + "_unit", std::string()));
    }
}

// The command's voice: progress on stderr unless --quiet, what stops a run always.
class TaskPrinter : public task::TaskObserver {
 public:
  explicit TaskPrinter(bool quiet) : quiet_(quiet) {}
  void note(const std::string& line) override {
    if (!quiet_) fmt::print(stderr, "kjudge: {}\n", line);
  }
  void problem(const std::string& line) override { fmt::print(stderr, "kjudge: {}\n", line); }
  void built(const task::TaskBuild& build) override {
    if (quiet_) return;
    fmt::print(stderr, "  build: {} ({:.1f} s{})\n", build.ok ? "ok" : build.failure, build.seconds,
               build.from_cache ? ", from the cache" : "");
    print_kernels(build);
    if (!build.ok) fmt::print(stderr, "{}\n", build.log);
  }
  void stage(const json& s) override {
    if (!quiet_) print_stage(s);
  }
  void flagged(const json& flags) override {
    if (quiet_) return;
    std::string list;
    for (const auto& f : flags)
      list += (list.empty() ? "" : ", ") +
              (f.is_string() ? std::string("channel_refused") : f.value("check", std::string()));
    fmt::print(stderr, "kjudge: flagged: {} (task-run.json \"flags\")\n", list);
  }

 private:
  bool quiet_;
};

int task_command(const TaskArgs& a, bool build_only) {
  const ResolvedSteps steps = resolve_step_options(a.steps, a.log_cap);
  task::TaskSessionOptions o;
  o.folder = a.folder;
  o.submission = a.submission;
  o.build_only = build_only;
  o.mode = a.mode;
  o.out = a.out;
  o.arch = a.arch;
  o.ncu = a.ncu;
  o.gpu = a.gpu;
  o.secret_seed = a.secret_seed;
  o.keep_workspace = a.keep_workspace;
  o.use_cache = !a.no_cache;
  o.cache_dir = a.cache_dir;
  o.isolate = a.isolate;
  o.isolate_chosen = a.isolate_option && a.isolate_option->count() > 0;
  o.timing = a.timing;
  o.placement = a.placement;
  o.max_time = a.max_time;
  o.target_error = a.target_error;
  o.gpu_wait = a.gpu_wait;
  o.max_runs = a.max_runs;
  o.min_runs = a.min_runs;
  o.profile_case = a.profile_case;
  o.harness = a.harness;
  o.python = a.python;
  o.step = steps.settings;
  o.sandbox_mode = steps.mode;
  o.sandbox_limits = steps.limits_how;
  TaskPrinter printer(a.quiet);
  const task::TaskSessionResult r = task::run_task_session(o, printer);
  if (a.json) fmt::print("{}\n", r.report.dump(2));
  for (const auto& w : r.warnings) fmt::print(stderr, "kjudge: warning: {}\n", w);
  if (!a.quiet) fmt::print(stderr, "kjudge: report in {}\n", r.report_path.string());
  return r.exit_code;
}

void add_common(CLI::App* c, TaskArgs& a) {
  c->add_option("FOLDER", a.folder, "Task folder (holds task.yml)")->required();
  c->add_option("SUBMISSION", a.submission, "The submission's source file")->required();
  c->add_option("--out", a.out,
                "Where task-run.json goes (default kjudge-runs/task-<name>-<time>)");
  c->add_option("--arch", a.arch,
                "GPU architecture to build for, e.g. sm_90a (default: this GPU's)");
  c->add_flag("--json", a.json, "Print the report JSON on stdout");
  c->add_flag("-q,--quiet", a.quiet, "Nothing on stderr but errors");
  c->add_flag("--keep-workspace", a.keep_workspace, "Keep the build directory (OUT/build)");
  c->add_option("--cache-dir", a.cache_dir,
                "Build cache (default $KJUDGE_CACHE_DIR or ~/.cache/kjudge)");
  c->add_flag("--no-cache", a.no_cache,
              "Build from scratch; neither read nor write the build cache");
  a.isolate_option =
      c->add_flag("--isolate,!--no-isolate", a.isolate,
                  "Run the submission in a process of its own, apart from the harness that "
                  "checks and times it, with the reference and the report, which the submission "
                  "cannot read (docs/tasks.md; `task build` builds both programs). The default "
                  "in test, benchmark and leaderboard modes; profile mode and --timing gpumode "
                  "always run in one process. --no-isolate: one process, which a submission can "
                  "forge the report of, with the CUPTI profiler's view of benchmarks");
  c->add_option("--harness", a.harness,
                "kjudge (default: kjudge's CUDA harness for lang cu, its Python harness for "
                "lang py) or task: the task's own eval.py / eval.cu run as GPU MODE runs it, for "
                "parity (its process holds the submission, which can write its report)")
      ->check(CLI::IsMember({"kjudge", "task"}));
  c->add_option("--python", a.python,
                "Python tasks: the interpreter, with torch (default $KJUDGE_PYTHON or python3)");
  add_step_options(c, a.steps);
}

}  // namespace

void add_task_commands(CLI::App& app, int& rc) {
  CLI::App* task =
      app.add_subcommand("task", "GPU MODE-style kernel tasks: a task.yml folder and a submission");
  task->require_subcommand(1);

  auto run_args = std::make_shared<TaskArgs>();
  CLI::App* run = task->add_subcommand(
      "run",
      "Build the task with a submission and run one mode: test, benchmark (tests, then "
      "timed benchmarks), leaderboard (tests and ranked benchmarks on a secret seed, every "
      "output re-checked), profile (Nsight Compute on one call)");
  add_common(run, *run_args);
  run->add_option("--mode", run_args->mode, "test (default), benchmark, leaderboard or profile")
      ->check(CLI::IsMember({"test", "benchmark", "leaderboard", "profile"}));
  run->add_option("--gpu", run_args->gpu, "GPU index (default 0)")->check(CLI::Range(0, 1023));
  run->add_option("--secret-seed", run_args->secret_seed,
                  "Leaderboard mode: the secret combined with every case's seed (default: random)");
  run->add_option("--max-time", run_args->max_time,
                  "Seconds of timed calls per benchmark before stopping (default 10; 30 ranked)")
      ->check(finite_range(0, 86400));
  run->add_option("--target-error", run_args->target_error,
                  "Stop a benchmark once its standard error / mean is below this (default 0.001)")
      ->check(finite_range(0, 1));
  run->add_option("--max-runs", run_args->max_runs,
                  "Timed calls per benchmark at most (default 1000)")
      ->check(CLI::Range(0, 1000000));
  run->add_option("--min-runs", run_args->min_runs,
                  "Timed calls per benchmark at least, whatever the error (default 10; the "
                  "wall budget still ends a very slow kernel's benchmark sooner)")
      ->check(CLI::Range(0, 1000000));
  run->add_option("--profile-case", run_args->profile_case,
                  "Profile mode: which benchmark (0-based; default the last)")
      ->check(CLI::Range(-1, 1000000));
  run->add_option("--timing", run_args->timing,
                  "Benchmark mode: kjudge (default) or gpumode: GPU MODE's CUDA harness timing "
                  "(host clock, one input, no L2 flush), for comparison only")
      ->check(CLI::IsMember({"kjudge", "gpumode"}));
  run->add_option("--placement", run_args->placement,
                  "Where timed calls' tensors go: arena (default: random places in one allocation, "
                  "no memory mapped between calls) or malloc (a cudaMalloc each)")
      ->check(CLI::IsMember({"malloc", "arena"}));
  run->add_option("--ncu", run_args->ncu, "The Nsight Compute CLI (default ncu on PATH)");
  run->add_option("--gpu-wait", run_args->gpu_wait,
                  "Seconds to wait for a GPU another kjudge is timing on (default 600)")
      ->check(finite_range(0, 86400));
  run->callback([run_args, &rc] { rc = task_command(*run_args, false); });

  auto build_args = std::make_shared<TaskArgs>();
  CLI::App* build = task->add_subcommand(
      "build",
      "Compile the task with a submission (no GPU needed) and show ptxas's resource usage");
  add_common(build, *build_args);
  build->callback([build_args, &rc] { rc = task_command(*build_args, true); });

  add_task_new_command(task, rc);
}

}  // namespace kjudge
