#include "task/session.h"

#include <fmt/format.h>
#include <openssl/rand.h>

#include <ctime>

#include "core/error.h"
#include "core/input_error.h"
#include "core/read_file.h"
#include "core/sha256.h"
#include "core/task_spec.h"
#include "core/time_stamp.h"
#include "eval/build_cache.h"
#include "perf/gpu_conditions.h"
#include "run/beside_binary.h"
#include "run/cloexec_file.h"
#include "run/gpu_lock.h"
#include "run/machine.h"
#include "task/own_harness.h"
#include "task/python_check.h"
#include "task/run.h"
#include "task/stage.h"

namespace kjudge::task {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

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

}  // namespace

TaskSessionResult run_task_session(const TaskSessionOptions& a, TaskObserver& observer) {
  TaskSpec task = load_task(a.folder);
  const HarnessChoice harness = choose_harness(task, a.harness);
  if (!harness.why_not.empty()) throw InputError(task.yml.string(), 0, "", harness.why_not);
  const std::string submission = read_input_file(a.submission.string());
  MachineInfo machine = probe_machine();
  const std::string gpu_name =
      a.gpu >= 0 && a.gpu < static_cast<int>(machine.gpus.size()) ? machine.gpus[a.gpu].name : "";
  if (std::string why = task_unsupported(task, gpu_name); !why.empty())
    throw InputError(task.yml.string(), 0, "", "kjudge refuses this task: " + why);
  const bool compiles =
      harness.kind == HarnessKind::kjudge_cuda || harness.kind == HarnessKind::task_cuda;
  if (compiles && machine.nvcc_path.empty())
    throw Error(exit_code::environment,
                "nvcc was not found: task builds need the CUDA toolkit (see `kjudge doctor`)");
  if (!a.build_only && machine.gpus.empty())
    throw Error(exit_code::environment,
                "no GPU here: `task run` needs one (`kjudge task build` compiles only)");
  if (!a.build_only && a.gpu >= static_cast<int>(machine.gpus.size()))
    throw Error(exit_code::usage,
                fmt::format("--gpu {}: this machine has {} GPU(s)", a.gpu, machine.gpus.size()));
  // A Python task's interpreter, checked before anything starts: one message, not a traceback
  // from inside the sandbox.
  std::optional<TaskPython> python;
  std::filesystem::path runner;
  if (is_python(harness.kind)) {
    const std::string name = a.python.empty() ? default_task_python() : a.python;
    try {
      python = probe_task_python(name);
    } catch (const std::exception& e) {
      throw Error(exit_code::environment, std::string("the Python for this task: ") + e.what());
    }
    if (std::string why = task_python_problem(*python, !a.build_only); !why.empty())
      throw Error(exit_code::environment, "the Python for this task: " + why);
    if (harness.kind == HarnessKind::kjudge_python) {
      try {
        runner = locate_python_entry("kjudge_gpumode_runner.py", "KJUDGE_GPUMODE_RUNNER",
                                     "kjudge's Python task harness");
      } catch (const std::exception& e) {
        throw Error(exit_code::environment, e.what());
      }
    }
  }

  const fs::path out = a.out.empty()
                           ? fs::path("kjudge-runs") /
                                 ("task-" + task.name + "-" + run_stamp(std::time(nullptr), false))
                           : a.out;
  fs::create_directories(out);
  const fs::path ws = fs::absolute(out / "build");
  fs::remove_all(ws);

  TaskSessionResult result;
  result.report_path = out / "task-run.json";
  json& report = result.report;
  report = {{"kind", "kjudge-task-run"},
            {"schema_version", 1},
            {"kjudge_version", KJUDGE_VERSION},
            {"task", task.name},
            {"task_dir", task.dir.string()},
            {"submission", fs::absolute(a.submission).string()},
            {"submission_sha256", sha256_hex(submission)},
            {"mode", a.build_only ? "build" : a.mode},
            {"sandbox", a.sandbox_mode},
            {"sandbox_limits", a.sandbox_limits},
            {"ranking_by", to_string(task.ranking_by)},
            {"harness", harness_name(harness.kind)},
            {"lang", task.lang}};
  if (is_task_own(harness.kind))
    report["harness_trust"] =
        "the task's own harness: what it reported came from the process that ran the "
        "submission, which can write those lines itself; kjudge's harness is the one to trust";
  if (python)
    report["python"] = {{"executable", python->executable},
                        {"version", python->version},
                        {"torch", python->torch},
                        {"triton", python->triton}};
  std::vector<std::string>& warnings = result.warnings;
  TaskIsolation iso = task_isolation(a.isolate, a.isolate_chosen, a.build_only ? "build" : a.mode,
                                     a.timing == "gpumode");
  if (harness.kind == HarnessKind::kjudge_python) {
    // Its checker and worker are two processes in every mode.
    iso = {};
    iso.isolate = true;
  } else if (is_task_own(harness.kind)) {
    iso = {};
    iso.why_not =
        "the task's own harness runs the submission in its own process (GPU MODE's protocol)";
    iso.overridden = a.isolate_chosen && a.isolate;
  }
  report["isolate"] = iso.isolate;
  if (!iso.isolate) report["isolate_why"] = iso.why_not;
  if (iso.overridden)
    warnings.push_back("--isolate cannot be honoured: " + iso.why_not + "; run in one process");
  else if (!iso.isolate && a.isolate)
    observer.note("note: run in one process, not isolated: " + iso.why_not);
  auto finish = [&](int code) {
    report["passed"] = code == exit_code::ok;
    report["warnings"] = warnings;
    write_file_cloexec(result.report_path, report.dump(2) + "\n");
    if (!a.keep_workspace) fs::remove_all(ws);
    result.exit_code = code;
    return result;
  };

  observer.note(fmt::format("building {} with {}", task.name, a.submission.string()));
  TaskBuildOptions bo;
  bo.step = a.step;
  bo.machine = machine;
  bo.arch = a.arch;
  bo.isolate = iso.isolate;  // the checker and the worker exactly when the run uses them
  if (a.use_cache) bo.cache_dir = a.cache_dir.empty() ? default_cache_dir() : a.cache_dir;
  bo.harness = harness.kind;
  TaskBuild build;
  if (harness.kind == HarnessKind::kjudge_cuda) {
    build = build_task(task, submission, ws, bo);
  } else if (harness.kind == HarnessKind::kjudge_python) {
    // Nothing to compile: the checker imports the task's reference, the worker the submission.
    stage_task_files(task, submission, ws);
    build.harness = harness.kind;
    build.workspace = ws;
    build.ok = true;
  } else {
    build = build_own_harness(task, submission, ws, bo);
  }
  json kernels = json::array();
  for (const auto& k : build.kernels) kernels.push_back(to_json(k));
  report["build"] = {{"ok", build.ok},
                     {"failure", build.failure},
                     {"arch", build.arch},
                     {"from_cache", build.from_cache},
                     {"harness_kept", build.harness_kept},
                     {"seconds", build.seconds},
                     {"command", build.command},
                     {"kernels", kernels},
                     {"log", build.log}};
  observer.built(build);
  if (!build.ok) return finish(build.judge_fault ? exit_code::judge_error : exit_code::findings);
  if (a.build_only) return finish(exit_code::ok);

  TaskRunOptions ro;
  ro.step = a.step;
  ro.machine = machine;
  ro.gpu = a.gpu;
  ro.ncu = a.ncu;
  ro.profile_case = a.profile_case;
  ro.gpumode_timing = a.timing == "gpumode";
  report["timing"] = a.timing;
  ro.placement = a.placement;
  report["placement"] = a.placement;
  ro.isolate = iso.isolate;
  if (python) {
    ro.python = python->executable;
    ro.python_paths = python->ro_paths;
    ro.python_runner = runner;
  }
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
      observer.problem("cannot draw a secret seed");
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
      observer.problem(
          fmt::format("GPU {} is busy with another kjudge timing run (lock {}); "
                      "waited {} s",
                      a.gpu, lock->path(), a.gpu_wait));
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
    observer.note(mode + " ...");
    ModeRun run = is_task_own(harness.kind) ? run_own_harness_mode(task, build, mode, ro)
                                            : run_task_mode(task, build, mode, ro);
    json s = to_json(run, task);
    if (s.contains("profile") && s["profile"].is_array()) add_spills(s["profile"], build.kernels);
    observer.stage(s);
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
  for (auto& f : lift_stage_flags(stage_json)) flags.push_back(std::move(f));
  report["flags"] = flags;
  if (!flags.empty()) observer.flagged(flags);
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

}  // namespace kjudge::task
