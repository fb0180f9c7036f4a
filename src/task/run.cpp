#include "task/run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "kjudge/seeds.h"
#include "perf/benchmarker.h"
#include "perf/ncu_summary.h"
#include "perf/profiler_channel.h"
#include "run/cloexec_file.h"
#include "run/result_channel.h"
#include "task/mode_cases.h"
#include "task/own_harness.h"
#include "task/python_step.h"
#include "task/step_failure.h"

namespace kjudge::task {

namespace fs = std::filesystem;

namespace {

// The harness's last words on stderr: CUDA errors and crashes say why there.
std::string last_harness_line(const std::string& log) {
  std::istringstream in(log);
  std::string line, last;
  while (std::getline(in, line))
    if (line.find("kjudge harness:") != std::string::npos) last = line;
  return last.empty() ? first_output_line(log) : last;
}

std::vector<std::string> rule_args(const kj::StopRule& r, double warmup_ms) {
  auto kv = [](const char* k, double v) {
    std::ostringstream s;
    s << k << "=" << v;
    return s.str();
  };
  return {kv("min_runs", r.min_runs),
          kv("max_runs", r.max_runs),
          kv("target_rel_err", r.target_rel_err),
          kv("max_timed_s", r.max_timed_s),
          kv("max_wall_s", r.max_wall_s),
          kv("warmup_ms", warmup_ms)};
}

std::string read_capped(const fs::path& p, std::size_t cap) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  std::string t = s.str();
  if (t.size() > cap) t = t.substr(0, cap) + "\n[... cut at " + std::to_string(cap) + " bytes]\n";
  return t;
}

// A program named without a slash, looked up in PATH and the CUDA toolkit's bin/.
fs::path find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return fs::weakly_canonical(name);
  std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  path += ":/usr/local/cuda/bin";
  std::stringstream in(path);
  std::string dir;
  std::error_code ec;
  while (std::getline(in, dir, ':'))
    if (!dir.empty() && fs::exists(fs::path(dir) / name, ec))
      return fs::weakly_canonical(fs::path(dir) / name, ec);
  return {};
}

}  // namespace

std::string task_cases_text(const std::vector<TaskCase>& cases,
                            const std::optional<std::uint64_t>& secret) {
  std::string out;
  for (const auto& c : cases) {
    TaskCase x = c;
    if (secret)
      for (auto& [k, v] : x.args)
        if (k == "seed") v = std::to_string(kj::combine_seed(std::stoull(v), *secret));
    out += x.text() + "\n";
  }
  return out;
}

std::optional<std::string> timing_gap(double event_median_ns, double host_median_ns) {
  // The host clock runs from before the call to after a device-wide synchronize, so it covers
  // the call's launches too: a few µs per launch. Only a gap no launch overhead explains (4×,
  // and half a millisecond) says that work ran where the events did not look (another stream,
  // another thread, after the stop event), or that the call waited for the device itself.
  if (!(host_median_ns > 4 * event_median_ns && host_median_ns - event_median_ns > 500e3))
    return std::nullopt;
  char b[200];
  std::snprintf(b, sizeof b,
                "the host clock saw %.1f us per call, the CUDA events on the timed stream %.1f us: "
                "GPU work outside the timed stream, another thread or after the call returned "
                "(or a synchronize inside it)",
                host_median_ns / 1e3, event_median_ns / 1e3);
  return std::string(b);
}

std::optional<std::string> isolated_time_gap(double worker_median_ns, double checker_median_ns,
                                             double crossing_ns) {
  // On the H100 an honest call's checker time was the worker's plus 277-299 µs, for kernels
  // of 8 µs to 218 ms alike; with the crossing measured on empty calls, what was left over was
  // 10-20 µs (a real call hands over more than an empty one), while the smallest cheat left
  // 83 µs (2026-11-24, results/gpu-runs.md, tenth session). 40 µs sits twice away from both.
  const double excess = checker_median_ns - std::max(crossing_ns, 0.0) - worker_median_ns;
  if (!(excess > 0.25 * worker_median_ns + 40e3)) return std::nullopt;
  char b[260];
  std::snprintf(b, sizeof b,
                "the checker's events saw %.1f us per call, %.1f us of it crossing between the "
                "processes, where the worker's own events reported %.1f us: GPU work outside the "
                "timed stream or after the call, or a made-up time",
                checker_median_ns / 1e3, std::max(crossing_ns, 0.0) / 1e3, worker_median_ns / 1e3);
  return std::string(b);
}

std::optional<double> task_score(RankingBy by, const std::vector<double>& means) {
  if (means.empty()) return std::nullopt;
  for (double m : means)
    if (!(m > 0)) return std::nullopt;
  switch (by) {
    case RankingBy::last:
      return means.back();
    case RankingBy::mean: {
      double s = 0;
      for (double m : means) s += m;
      return s / means.size();
    }
    case RankingBy::geom: {
      double s = 0;
      for (double m : means) s += std::log(m);
      return std::exp(s / means.size());
    }
  }
  return std::nullopt;
}

std::string isolation_unsupported(const std::string& mode, bool gpumode_timing) {
  if (mode == "profile")
    return "profile mode runs Nsight Compute on the harness's own call, which the checker of an "
           "isolated run does not make";
  if (gpumode_timing)
    return "--timing gpumode is GPU MODE's own one-process loop, kept for comparison only";
  return "";
}

TaskIsolation task_isolation(bool wanted, bool explicit_choice, const std::string& mode,
                             bool gpumode_timing) {
  TaskIsolation t;
  if (!wanted) {
    t.why_not = explicit_choice ? "--no-isolate" : "not asked for";
    return t;
  }
  t.why_not = isolation_unsupported(mode, gpumode_timing);
  t.isolate = t.why_not.empty();
  t.overridden = !t.isolate && explicit_choice;
  return t;
}

ModeRun run_task_mode(const TaskSpec& task, const TaskBuild& build, const std::string& mode,
                      const TaskRunOptions& opt) {
  ModeRun run;
  run.mode = mode;
  if (const TaskFile* sub = task.submission_file()) {
    std::ifstream in(build.workspace / sub->name, std::ios::binary);
    if (in) {
      std::ostringstream text;
      text << in.rdbuf();
      run.flags = static_flags({{sub->name, text.str()}}, task_context(task));
    }
  }
  const bool ranked = mode == "leaderboard";
  const auto picked = mode_cases(task, mode, opt.profile_case, run.failure);
  if (!picked) return run;
  const std::vector<TaskCase>& cases = *picked;
  // kjudge's Python harness always runs the submission in a worker process of its own.
  const bool python = build.harness == HarnessKind::kjudge_python;
  run.isolated = python || (opt.isolate && isolation_unsupported(mode, opt.gpumode_timing).empty());
  if (python && (opt.python.empty() || opt.python_runner.empty())) {
    run.failure = "judge: kjudge's Python harness needs an interpreter and its runner script";
    return run;
  }
  if (run.isolated && !python && (build.checker.empty() || build.worker.empty())) {
    run.failure =
        "judge: an isolated run needs a build made with isolate (kjudge_checker and "
        "kjudge_worker)";
    return run;
  }
  const fs::path cases_file = build.workspace / ("cases-" + mode + ".txt");
  write_file_cloexec(cases_file, task_cases_text(cases, ranked || mode == "test" ? opt.secret_seed
                                                                                 : std::nullopt));

  std::optional<ResultChannel> channel;
  try {
    channel.emplace("kjudge-task");
    channel->write_nonce();
  } catch (const std::exception& e) {
    run.failure = e.what();
    return run;
  }
  StepExtras extras;
  if (opt.gpu >= 0) extras.env.push_back("CUDA_VISIBLE_DEVICES=" + std::to_string(opt.gpu));
  extras.env.push_back("KJUDGE_RESULT_FD=" + std::to_string(channel->fd()));
  extras.inherit_fds.push_back(channel->fd());
  // The harness runs directly (no shell in between), so its own signal or exit status is seen.
  double timeout = mode == "test" ? task.test_timeout_s
                   : ranked       ? task.ranked_timeout_s
                                  : task.benchmark_timeout_s;
  // Each benchmark's wall budget fits the mode's timeout: the benchmarks share 80 % of it.
  kj::StopRule rule = ranked ? opt.ranked_rule : opt.benchmark_rule;
  rule.max_wall_s = std::min(rule.max_wall_s, 0.8 * timeout / static_cast<double>(cases.size()));
  // The CUPTI profiler (task/cupti.h), in the timed modes. Not with GPU MODE's timing, which is
  // kept only to compare with, nor with Nsight Compute, which has its own.
  const bool timed = mode == "benchmark" || mode == "leaderboard";
  std::optional<ResultChannel> profile_channel;
  if (timed) {
    const fs::path lib = opt.profiler ? *opt.profiler : locate_profiler();
    if (python) {
      run.cupti.why =
          "not carried by kjudge's Python harness: timed by the worker's CUDA events, held to "
          "account by the checker's";
    } else if (opt.gpumode_timing) {
      run.cupti.why = "not used with --timing gpumode";
    } else if (std::error_code ec; lib.empty() || !fs::is_regular_file(lib, ec)) {
      // KJUDGE_PROFILER=none turns it off (to compare timings with and without it).
      run.cupti.why = "the profiler library (libkjudge_profiler.so) was not found" +
                      (lib.empty() ? std::string() : " at " + lib.string()) +
                      " (built only where CUPTI is installed; set KJUDGE_PROFILER): timed by the "
                      "CUDA events and the host clock only";
    } else {
      try {
        profile_channel.emplace(open_profiler_channel("kjudge-profile"));
      } catch (const std::exception& e) {
        run.failure = e.what();
        return run;
      }
      if (run.isolated) {
        // The checker hands it to the worker, the process with the submission's GPU work
        // (harness/kjudge/worker_link.h); the checker runs without it, and never reads the
        // nonce the descriptor holds: the worker's profiler takes it.
        extras.env.insert(extras.env.end(),
                          {"KJUDGE_WORKER_PROFILER=" + lib.string(),
                           "KJUDGE_WORKER_PROFILE_FD=" + std::to_string(profile_channel->fd())});
      } else {
        extras.env.insert(extras.env.end(),
                          {"LD_PRELOAD=" + lib.string(), "NVTX_INJECTION64_PATH=" + lib.string()});
        // The start line at once: a record that stops there tells a profiler that never
        // finished its record (an _exit) from one that never loaded (task/cupti.h).
        for (std::string& e : profiler_channel_env(*profile_channel, true))
          extras.env.push_back(std::move(e));
      }
      // Bound at its host path, not through StepExtras::preload: in an isolated run the checker
      // is not to load it, only to hand its path on to the worker it starts.
      extras.ro_paths.push_back(lib);
      extras.inherit_fds.push_back(profile_channel->fd());
    }
  }
  std::vector<std::string> argv;
  if (python) {
    // -I: no PYTHON* variable, no user site-packages, not even the script's folder on sys.path
    // (the runner puts its own package there itself, python/kjudge_gpumode_runner.py); -B: no
    // bytecode written into the workspace the submission can rewrite.
    argv = {opt.python,
            "-I",
            "-B",
            opt.python_runner.string(),
            mode,
            cases_file.filename().string(),
            "submission=" + task.submission_file()->name};
    extras.ro_paths.insert(extras.ro_paths.end(), opt.python_paths.begin(), opt.python_paths.end());
    extras.ro_paths.push_back(opt.python_runner.parent_path());
    add_python_task_env(extras, opt.python, build.workspace);
  } else {
    argv = {run.isolated ? "./kjudge_checker" : "./kjudge_task", mode,
            cases_file.filename().string()};
  }
  for (const auto& a : rule_args(rule, opt.warmup_ms)) argv.push_back(a);
  if (opt.gpumode_timing && !python) argv.push_back("style=gpumode");
  if (opt.placement == "arena" && !python) argv.push_back("placement=arena");
  if (run.isolated && !python) argv.push_back("worker=./kjudge_worker");
  const fs::path ncu_csv = build.workspace / "ncu.csv";
  if (mode == "profile") {
    // Only the kernels inside the harness's "custom_kernel" NVTX range: one call.
    std::vector<std::string> ncu = {
        opt.ncu,        "--nvtx",    "--nvtx-include", "custom_kernel/", "--section",
        "SpeedOfLight", "--section", "Occupancy",      "--section",      "LaunchStats",
        "--csv",        "--page",    "details",        "--print-units",  "base",
        "--log-file",   "ncu.csv"};
    // The Python harness calls custom_kernel in its worker, a child of the process ncu starts.
    if (python) ncu.insert(ncu.begin() + 1, {"--target-processes", "all"});
    argv.insert(argv.begin(), ncu.begin(), ncu.end());
    // ncu (a script in the toolkit's bin/) runs Nsight Compute from the toolkit or from
    // /opt/nvidia, where the GPU machine has it: the sandbox must see both.
    std::error_code ec;
    for (const fs::path& p :
         {fs::path("/opt/nvidia"), find_program(opt.ncu).parent_path().parent_path()})
      if (!p.empty() && p != "/" && p != "/usr" && fs::exists(p, ec)) extras.ro_paths.push_back(p);
    timeout = std::max(timeout, 600.0);  // every kernel is replayed once per metric pass
  }
  extras.argv = argv;
  std::string command;
  for (const auto& a : argv) command += (command.empty() ? "" : " ") + a;
  auto t0 = std::chrono::steady_clock::now();
  ProcessResult r = run_step(opt.step, opt.machine, command, build.workspace, timeout, extras);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  run.log = r.output;
  const std::string record = channel->read_all();

  if (auto why =
          harness_step_failure(r, timeout, mode, "the harness", last_harness_line(r.output))) {
    run.failure = *why;
    return run;
  }
  if (r.exit_code == 110) {
    run.failure = "CUDA error: " + last_harness_line(r.output);
    return run;
  }
  if (r.exit_code != 0) {
    run.failure = "exit " + std::to_string(r.exit_code) + ": " + last_harness_line(r.output);
    return run;
  }
  try {
    run.report = parse_harness_record(record, channel->nonce());
  } catch (const HarnessRecordError& e) {
    run.channel_refused = true;
    run.failure = std::string("the harness's report was refused: ") + e.what();
    return run;
  }
  if (run.isolated && run.report.process != "isolated") {
    // Only the checker writes this record: a report without it came from somewhere else.
    run.channel_refused = true;
    run.failure =
        "the harness's report was refused: an isolated run's report without the "
        "checker's record";
    return run;
  }
  if (profile_channel) {
    std::vector<std::string> names;
    for (const auto& c : task.benchmarks) names.push_back(c.text());
    if (run.isolated) {
      // The record is the worker's: "loaded" where the checker says it handed the profiler on.
      HarnessReport worker = run.report;
      worker.profiler = run.report.worker_profiler == "passed" ? "loaded" : "absent";
      run.cupti =
          task_cupti_from_record(profile_channel_text(*profile_channel), profile_channel->nonce(),
                                 worker, names, "the worker's process (the submission's)");
    } else {
      run.cupti = task_cupti_from_record(profile_channel_text(*profile_channel),
                                         profile_channel->nonce(), run.report, names);
    }
  }
  // Isolated, the report is the checker's, whatever the worker's profiler shows (a flag then).
  if (run.cupti.unfinished && !run.isolated) {
    // The process exited 0 without its exit handlers. The harness never ends so after its
    // report (its own failures exit 110 or 111), so the report is not its own: on the H100
    // exactly this state came from tests/cheats/task/forge_report_memory.cu, which wrote a whole
    // report with the nonce it read from the harness's memory and called _exit(0).
    run.channel_refused = true;
    run.failure =
        "the harness's report was refused: the CUPTI profiler loaded but its record was never "
        "finished, so the process ended without its exit handlers, which the harness never "
        "does after writing its report";
    return run;
  }
  run.completed = true;
  run.passed = run.report.passed;
  if (!run.report.task_error.empty()) {
    run.failure = "the task's own code failed: " + run.report.task_error;
  } else if (!run.passed) {
    // Named by the public case: a ranked run's combined seed is never shown.
    const std::vector<TaskCase>& shown = mode == "test" ? task.tests : task.benchmarks;
    auto name = [&](std::size_t i, const std::string& fallback) {
      return i < shown.size() && mode != "profile" ? shown[i].text() : fallback;
    };
    for (std::size_t i = 0; i < run.report.tests.size(); ++i)
      if (run.report.tests[i].status != "pass") {
        run.failure =
            "test '" + name(i, run.report.tests[i].spec) + "': " + run.report.tests[i].error;
        break;
      }
    for (std::size_t i = 0; i < run.report.benchmarks.size() && run.failure.empty(); ++i)
      if (run.report.benchmarks[i].status != "pass")
        run.failure = "benchmark '" + name(i, run.report.benchmarks[i].spec) +
                      "': " + run.report.benchmarks[i].error;
    if (!run.report.profile_error.empty() && run.failure.empty())
      run.failure = "profiled call: " + run.report.profile_error;
    if (run.failure.empty()) run.failure = "the harness reported a failure";
  }
  if (mode == "profile") {
    run.profile_log = read_capped(ncu_csv, 256 * 1024);
    try {
      run.profile = summarize_ncu(parse_ncu_csv(run.profile_log));
    } catch (const std::exception& e) {
      run.profile = nullptr;
      run.completed = false;
      run.failure = std::string("Nsight Compute gave no profile: ") + e.what() + "; " +
                    first_output_line(run.profile_log.empty() ? r.output : run.profile_log);
    }
  }
  return run;
}

nlohmann::json to_json(const ModeRun& run, const TaskSpec& task) {
  nlohmann::json j = {{"mode", run.mode},
                      {"harness", run.harness},
                      {"completed", run.completed},
                      {"passed", run.passed},
                      {"seconds", run.seconds},
                      {"failure", run.failure},
                      {"channel_refused", run.channel_refused},
                      {"isolated", run.isolated},
                      {"device", run.report.device}};
  // How the worker ended when the checker let it go (its exit handlers finish the profiler's
  // record): "exit 0", or "killed after 20000 ms" for one that would not end.
  if (run.isolated && !run.report.worker_end.empty()) j["worker_end"] = run.report.worker_end;
  auto public_spec = [&](const std::vector<TaskCase>& cases, std::size_t i,
                         const std::string& fallback) {
    return i < cases.size() ? cases[i].text() : fallback;
  };
  if (!run.report.tests.empty()) {
    nlohmann::json tests = nlohmann::json::array();
    for (std::size_t i = 0; i < run.report.tests.size(); ++i) {
      const auto& t = run.report.tests[i];
      nlohmann::json x = {{"spec", public_spec(task.tests, i, t.spec)}, {"status", t.status}};
      if (!t.error.empty()) x["error"] = t.error;
      if (t.max_abs_error >= 0) x["max_abs_error"] = t.max_abs_error;
      tests.push_back(x);
    }
    j["tests"] = tests;
  }
  nlohmann::json flags = flags_json(run.flags);
  if (run.popcorn) {
    // The task's own harness: its figures, its verdict; no kjudge timing cross-checks (its
    // process holds the submission, so none of them would be worth more than its lines).
    add_popcorn_json(run, task, j);
    if (!flags.empty()) j["cheat_flags"] = flags;
    j["log"] = run.log;
    return j;
  }
  if (!run.report.benchmarks.empty()) {
    nlohmann::json benches = nlohmann::json::array();
    std::vector<double> means;
    for (std::size_t i = 0; i < run.report.benchmarks.size(); ++i) {
      const auto& b = run.report.benchmarks[i];
      kj::RunStats s = kj::summarize_runs(b.times_ns);
      kj::RunStats h = kj::summarize_runs(b.host_ns);
      nlohmann::json x = {{"spec", public_spec(task.benchmarks, i, b.spec)},
                          {"status", b.status},
                          {"runs", s.runs},
                          {"mean_us", s.mean / 1e3},
                          {"median_us", s.median / 1e3},
                          {"std_us", s.std / 1e3},
                          {"err_us", s.err / 1e3},
                          {"rel_err", s.mean > 0 ? s.err / s.mean : 0},
                          {"best_us", s.best / 1e3},
                          {"worst_us", s.worst / 1e3},
                          {"host_mean_us", h.mean / 1e3},
                          {"host_median_us", h.median / 1e3},
                          {"checked", b.checked},
                          {"stop", b.stop}};
      if (!b.error.empty()) x["error"] = b.error;
      std::optional<std::string> isolated_gap;
      if (!b.checker_ns.empty()) {
        // The checker's events around the worker's call: the worker's time plus the crossing
        // between the processes (crossing_us), unless something ran where the worker's own
        // events did not look.
        kj::RunStats c = kj::summarize_runs(b.checker_ns);
        x["checker_mean_us"] = c.mean / 1e3;
        x["checker_median_us"] = c.median / 1e3;
        if (run.report.crossing_ns >= 0) x["crossing_us"] = run.report.crossing_ns / 1e3;
        isolated_gap = isolated_time_gap(s.median, c.median, run.report.crossing_ns);
      }
      std::vector<double> us;
      for (double t : b.times_ns) us.push_back(t / 1e3);
      x["times_us"] = us;
      if (run.cupti.used && i < run.cupti.benchmarks.size())
        add_cupti_benchmark_fields(run.cupti.benchmarks[i], x);
      benches.push_back(x);
      if (b.status == "pass") means.push_back(s.mean / 1e3);
      if (isolated_gap)
        flags.push_back({{"check", "isolated_time"},
                         {"detail", "benchmark '" + public_spec(task.benchmarks, i, b.spec) +
                                        "': " + *isolated_gap},
                         {"source", "timing"}});
      if (auto why = timing_gap(s.median, h.median))
        flags.push_back(
            {{"check", "timing_gap"},
             {"detail", "benchmark '" + public_spec(task.benchmarks, i, b.spec) + "': " + *why},
             {"source", "timing"}});
    }
    j["benchmarks"] = benches;
    j["warmup_calls"] = run.report.warmup_calls;
    if (run.passed && means.size() == run.report.benchmarks.size())
      if (auto score = task_score(task.ranking_by, means)) {
        j["score_us"] = *score;
        j["ranking_by"] = to_string(task.ranking_by);
      }
  }
  if (run.mode == "benchmark" || run.mode == "leaderboard")
    j["cupti"] = cupti_stage_json(run.cupti);
  for (const auto& f : run.cupti.flags)
    flags.push_back({{"check", f.check}, {"detail", f.detail}, {"source", "cupti"}});
  if (run.mode == "profile") j["profile"] = run.profile;
  if (!flags.empty()) j["cheat_flags"] = flags;
  j["log"] = run.log;
  return j;
}

nlohmann::json lift_stage_flags(const nlohmann::json& stages) {
  nlohmann::json out = nlohmann::json::array();
  std::map<std::string, std::size_t> at;  // each lifted flag without `stages`, dumped: its place
  for (const auto& stage : stages) {
    if (!stage.is_object() || !stage.contains("cheat_flags")) continue;
    const std::string mode = stage.value("mode", std::string());
    for (const auto& f : stage["cheat_flags"]) {
      const auto [it, added] = at.emplace(f.dump(), out.size());
      if (added) {
        out.push_back(f);
        if (f.is_object()) out.back()["stages"] = nlohmann::json::array();
      }
      nlohmann::json& lifted = out[it->second];
      if (lifted.is_object() && !mode.empty() &&
          std::find(lifted["stages"].begin(), lifted["stages"].end(), mode) ==
              lifted["stages"].end())
        lifted["stages"].push_back(mode);
    }
  }
  return out;
}

}  // namespace kjudge::task
