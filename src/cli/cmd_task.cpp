// kjudge task run | build: a GPU MODE-style task folder with one submission (issue 6).
#include <fmt/format.h>
#include <openssl/rand.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "cli/commands.h"
#include "cli/option_ranges.h"
#include "cli/step_options.h"
#include "core/error.h"
#include "core/input_error.h"
#include "core/read_file.h"
#include "core/sha256.h"
#include "core/task_spec.h"
#include "core/time_stamp.h"
#include "eval/build_cache.h"
#include "perf/gpu_conditions.h"
#include "run/cloexec_file.h"
#include "run/gpu_lock.h"
#include "run/machine.h"
#include "task/build.h"
#include "task/run.h"

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
  std::string cache_dir, timing = "kjudge", placement = "arena";
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
      fmt::print(stderr, "    {:<34} {:>5} {:>10} {:>10} {:>9} {:>7.3f} {:>10} {:>10} {:>10}\n",
                 b["spec"].get<std::string>(), b["runs"].get<int>(), us(b["mean_us"]),
                 us(b["median_us"]), us(b["std_us"]), 100 * b["rel_err"].get<double>(),
                 us(b["best_us"]), us(b["worst_us"]), us(b["host_mean_us"]));
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

// The profile names kernels as ncu does; ptxas's spills are joined to them by function name.
void add_spills(json& profile, const std::vector<KernelResources>& kernels) {
  auto base = [](const std::string& n) {
    std::string b = n.substr(0, n.find('('));
    std::size_t sp = b.rfind(' ');  // "void f" -> "f"
    return sp == std::string::npos ? b : b.substr(sp + 1);
  };
  for (auto& k : profile)
    for (const auto& r : kernels)
      if (base(r.name) == base(k.value("kernel", std::string()))) {
        k["spill_store_bytes"] = r.spill_store_bytes;
        k["spill_load_bytes"] = r.spill_load_bytes;
      }
}

int task_command(const TaskArgs& a, bool build_only) {
  TaskSpec task = load_task(a.folder);  // InputError: exit 2 from run_cli
  if (std::string why = task_unsupported(task); !why.empty()) {
    throw InputError(task.yml.string(), 0, "", why);
  }
  const std::string submission = read_input_file(a.submission);
  MachineInfo machine = probe_machine();
  if (machine.nvcc_path.empty()) {
    throw Error(exit_code::environment,
                "nvcc was not found: task builds need the CUDA toolkit (see `kjudge doctor`)");
  }
  if (!build_only && machine.gpus.empty()) {
    throw Error(exit_code::environment,
                "no GPU here: `task run` needs one (`kjudge task build` compiles only)");
  }
  if (!build_only && a.gpu >= static_cast<int>(machine.gpus.size())) {
    throw Error(exit_code::usage,
                fmt::format("--gpu {}: this machine has {} GPU(s)", a.gpu, machine.gpus.size()));
  }
  const ResolvedSteps steps = resolve_step_options(a.steps, a.log_cap);

  const fs::path out = a.out.empty()
                           ? fs::path("kjudge-runs") /
                                 ("task-" + task.name + "-" + run_stamp(std::time(nullptr), false))
                           : fs::path(a.out);
  fs::create_directories(out);
  const fs::path ws = fs::absolute(out / "build");
  fs::remove_all(ws);

  json report = {{"kind", "kjudge-task-run"},
                 {"schema_version", 1},
                 {"kjudge_version", KJUDGE_VERSION},
                 {"task", task.name},
                 {"task_dir", task.dir.string()},
                 {"submission", fs::absolute(a.submission).string()},
                 {"submission_sha256", sha256_hex(submission)},
                 {"mode", build_only ? "build" : a.mode},
                 {"sandbox", steps.mode},
                 {"sandbox_limits", steps.limits_how},
                 {"ranking_by", to_string(task.ranking_by)}};
  std::vector<std::string> warnings;
  const task::TaskIsolation iso =
      task::task_isolation(a.isolate, a.isolate_option && a.isolate_option->count() > 0,
                           build_only ? "build" : a.mode, a.timing == "gpumode");
  report["isolate"] = iso.isolate;
  if (!iso.isolate) report["isolate_why"] = iso.why_not;
  if (iso.overridden)
    warnings.push_back("--isolate cannot be honoured: " + iso.why_not + "; run in one process");
  else if (!iso.isolate && a.isolate && !a.quiet)
    fmt::print(stderr, "kjudge: note: run in one process, not isolated: {}\n", iso.why_not);
  auto finish = [&](int code) {
    report["passed"] = code == exit_code::ok;
    report["warnings"] = warnings;
    write_file_cloexec(out / "task-run.json", report.dump(2) + "\n");
    if (a.json) fmt::print("{}\n", report.dump(2));
    for (const auto& w : warnings) fmt::print(stderr, "kjudge: warning: {}\n", w);
    if (!a.quiet) fmt::print(stderr, "kjudge: report in {}\n", (out / "task-run.json").string());
    if (!a.keep_workspace) fs::remove_all(ws);
    return code;
  };

  if (!a.quiet) fmt::print(stderr, "kjudge: building {} with {}\n", task.name, a.submission);
  task::TaskBuildOptions bo;
  bo.step = steps.settings;
  bo.machine = machine;
  bo.arch = a.arch;
  bo.isolate = iso.isolate;  // the checker and the worker exactly when the run uses them
  if (!a.no_cache) bo.cache_dir = a.cache_dir.empty() ? default_cache_dir() : fs::path(a.cache_dir);
  task::TaskBuild build = task::build_task(task, submission, ws, bo);
  json kernels = json::array();
  for (const auto& k : build.kernels) kernels.push_back(to_json(k));
  report["build"] = {{"ok", build.ok},           {"failure", build.failure},
                     {"arch", build.arch},       {"from_cache", build.from_cache},
                     {"seconds", build.seconds}, {"command", build.command},
                     {"kernels", kernels},       {"log", build.log}};
  if (!a.quiet) {
    fmt::print(stderr, "  build: {} ({:.1f} s{})\n", build.ok ? "ok" : build.failure, build.seconds,
               build.from_cache ? ", from the cache" : "");
    print_kernels(build);
    if (!build.ok) fmt::print(stderr, "{}\n", build.log);
  }
  if (!build.ok) return finish(build.judge_fault ? exit_code::judge_error : exit_code::findings);
  if (build_only) return finish(exit_code::ok);

  task::TaskRunOptions ro;
  ro.step = steps.settings;
  ro.machine = machine;
  ro.gpu = a.gpu;
  ro.ncu = a.ncu;
  ro.profile_case = a.profile_case;
  ro.gpumode_timing = a.timing == "gpumode";
  report["timing"] = a.timing;
  ro.placement = a.placement;
  report["placement"] = a.placement;
  ro.isolate = iso.isolate;
  // GPU MODE's CUDA harness stops at 100 calls, 10 s, or a standard error under 1 %.
  if (ro.gpumode_timing) ro.benchmark_rule = {3, 100, 0.01, 10, 60};
  for (kj::StopRule* r : {&ro.benchmark_rule, &ro.ranked_rule}) {
    if (a.max_time > 0) r->max_timed_s = a.max_time;
    if (a.target_error > 0) r->target_rel_err = a.target_error;
    if (a.max_runs > 0) r->max_runs = a.max_runs;
    if (a.min_runs > 0) r->min_runs = a.min_runs;
  }
  if (a.mode == "leaderboard") {
    std::uint64_t s = 0;
    if (a.secret_seed) {
      s = *a.secret_seed;
    } else if (RAND_bytes(reinterpret_cast<unsigned char*>(&s), sizeof s) != 1) {
      fmt::print(stderr, "kjudge: cannot draw a secret seed\n");
      return finish(exit_code::environment);
    }
    ro.secret_seed = s % (1ull << 31);  // GPU MODE draws secrets below 2^31
    report["secret_seed"] = a.secret_seed ? json(*ro.secret_seed) : json("random, not shown");
  }

  // Timed modes hold the GPU alone: other kjudge processes wait on its lock.
  std::optional<GpuLock> lock;
  std::optional<GpuWatcher> watcher;
  const bool timed = a.mode != "test";
  json conditions = json::object();
  if (timed) {
    lock.emplace(a.gpu, a.gpu_wait);
    if (!lock->held()) {
      fmt::print(stderr,
                 "kjudge: GPU {} is busy with another kjudge timing run (lock {}); waited {} s\n",
                 a.gpu, lock->path(), a.gpu_wait);
      return finish(exit_code::environment);
    }
    for (const auto& p : gpu_compute_processes(a.gpu))
      warnings.push_back("GPU " + std::to_string(a.gpu) + " is also used by: " + p +
                         " (timings may be off)");
    if (auto snap = take_gpu_snapshot(a.gpu)) conditions["start"] = to_json(*snap);
    watcher.emplace(a.gpu);
  }

  std::vector<std::string> stages = {a.mode};
  if (a.mode == "benchmark" || a.mode == "leaderboard") stages = {"test", a.mode};
  json stage_json = json::array();
  std::vector<std::string> refusals;
  int code = exit_code::ok;
  for (const auto& mode : stages) {
    if (!a.quiet) fmt::print(stderr, "kjudge: {} ...\n", mode);
    task::ModeRun run = task::run_task_mode(task, build, mode, ro);
    json s = to_json(run, task);
    if (s.contains("profile") && s["profile"].is_array()) add_spills(s["profile"], build.kernels);
    if (!a.quiet) print_stage(s);
    // The raw ncu table stays beside the report.
    if (!run.profile_log.empty()) write_file_cloexec(out / "ncu.csv", run.profile_log);
    stage_json.push_back(s);
    if (s.contains("score_us")) report["score_us"] = s["score_us"];
    if (run.channel_refused) refusals.push_back("result channel tampered with: " + run.failure);
    if (!run.completed && !run.channel_refused && run.failure.rfind("judge:", 0) == 0) {
      code = exit_code::judge_error;
      break;
    }
    if (!run.passed || !run.completed) {
      code = exit_code::findings;
      break;
    }
  }
  report["stages"] = stage_json;
  // Every stage's flags at the top too, so that a reader (a person, a leaderboard) sees what
  // was flagged without reading each stage: the refusals first, then each distinct cheat flag.
  json flags = refusals;
  for (auto& f : task::lift_stage_flags(stage_json)) flags.push_back(std::move(f));
  report["flags"] = flags;
  if (!a.quiet && !flags.empty()) {
    std::string list;
    for (const auto& f : flags)
      list += (list.empty() ? "" : ", ") +
              (f.is_string() ? std::string("channel_refused") : f.value("check", std::string()));
    fmt::print(stderr, "kjudge: flagged: {} (task-run.json \"flags\")\n", list);
  }
  if (timed) {
    GpuWatchReport w = watcher->stop();
    conditions["during"] = to_json(w);
    if (auto snap = take_gpu_snapshot(a.gpu)) conditions["end"] = to_json(*snap);
    if (!w.slowdowns.empty()) {
      std::string list;
      for (const auto& x : w.slowdowns) list += (list.empty() ? "" : ", ") + x;
      warnings.push_back("the GPU was slowed down during the run (" + list +
                         "): timings may be off");
    }
    report["conditions"] = conditions;
  }
  return finish(code);
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
