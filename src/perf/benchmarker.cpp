#include "perf/benchmarker.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>

#include "eval/hidden_lines.h"
#include "perf/gpu_conditions.h"
#include "perf/interleave.h"
#include "perf/profile_record.h"
#include "perf/profiler_channel.h"
#include "perf/timing_select.h"
#include "run/beside_binary.h"
#include "run/main_return.h"
#include "run/result_channel.h"

namespace kjudge {

namespace fs = std::filesystem;

namespace {

nlohmann::json spread_json(const std::optional<Spread>& s) {
  if (!s) return nullptr;
  return {{"n", s->n},        {"median_ms", s->median}, {"mean_ms", s->mean},
          {"q1_ms", s->q1},   {"q3_ms", s->q3},         {"iqr_ms", s->iqr},
          {"mad_ms", s->mad}, {"min_ms", s->min},       {"max_ms", s->max}};
}

}  // namespace

nlohmann::json to_json(const BenchResult& r) {
  // schema_version: docs/json-schemas.md; readers accept rows without it (older runs).
  nlohmann::json j = {{"schema_version", 1},
                      {"task_id", r.task_id},
                      {"sample", r.sample},
                      {"group", r.group},
                      {"gpu", r.gpu},
                      {"timed", r.speedup.has_value()},
                      {"solution_ms", r.solution_ms},
                      {"baseline_ms", r.baseline_ms},
                      {"solution", spread_json(r.solution)},
                      {"baseline", spread_json(r.baseline)},
                      {"how", r.how},
                      {"seconds", r.wall_s}};
  if (!r.solution_wall_ms.empty() || !r.baseline_wall_ms.empty()) {
    j["solution_wall_ms"] = r.solution_wall_ms;
    j["baseline_wall_ms"] = r.baseline_wall_ms;
  }
  if (!r.flags.empty()) {
    nlohmann::json flags = nlohmann::json::array();
    for (const BenchFlag& f : r.flags)
      flags.push_back({{"check", f.check}, {"detail", f.detail}, {"source", "timing"}});
    j["cheat_flags"] = flags;
  }
  if (r.speedup) {
    j["speedup"] = {{"estimate", r.speedup->estimate},
                    {"low", r.speedup->low},
                    {"high", r.speedup->high},
                    {"confidence", r.speedup->confidence}};
  } else {
    j["speedup"] = nullptr;
    j["not_timed"] = r.not_timed;
  }
  return j;
}

std::string bench_unavailable(const Problem& problem, const fs::path& profiler) {
  if (!problem.benchmark_command || problem.benchmark_command->empty())
    return "the problem has no benchmark_command";
  if (std::string bad = timing_mode_problem(problem.timing_mode); !bad.empty())
    return "timing_mode cannot be used: " + bad;
  if (needs_profiler(problem.timing_mode) && profiler.empty())
    return "timing mode '" + problem.timing_mode.type +
           "' needs the profiler library (libkjudge_profiler.so), which was not found "
           "(built only where CUPTI is installed; set KJUDGE_PROFILER)";
  return "";
}

fs::path locate_profiler() {
  return locate_beside_binary("KJUDGE_PROFILER", "libkjudge_profiler.so");
}

Benchmarker::Benchmarker(BenchOptions options, MachineInfo machine)
    : opt_(std::move(options)), machine_(std::move(machine)) {
  if (opt_.runs < 1) opt_.runs = 1;
  if (opt_.warmups < 0) opt_.warmups = 0;
  if (!opt_.main_guard) opt_.main_guard = locate_main_guard();
}

TimedRun Benchmarker::time_once(const Problem& problem, const fs::path& workspace, int gpu) const {
  TimedRun out;
  const TimingMode& mode = problem.timing_mode;
  const std::string& command = *problem.benchmark_command;
  StepExtras extras = problem_step_extras(problem, machine_);
  if (gpu >= 0) extras.env.push_back("CUDA_VISIBLE_DEVICES=" + std::to_string(gpu));
  // The shell would load the profiler too and take its channel; a simple command runs alone.
  const auto simple = simple_command(command);
  const std::vector<std::string>* words = simple ? &simple->argv : nullptr;

  std::optional<ResultChannel> channel;
  std::optional<MainGuard> guard;
  try {
    if (needs_profiler(mode)) channel.emplace(open_profiler_channel("kjudge-profile"));
    // An early exit(0) would end the timed run before its work: it must come back from main().
    guard = attach_main_guard(*opt_.main_guard, workspace, simple, extras);
  } catch (const std::exception& e) {
    out.failure = e.what();
    return out;
  }
  if (simple && !guard) {  // the guard's attach set them
    extras.argv = simple->argv;
    extras.env.insert(extras.env.end(), simple->env.begin(), simple->env.end());
  }
  if (channel && words) {
    // The profiler would never take its channel, and the nonce in it would be the program's to
    // read and sign a record of its own with.
    if (std::string why = preload_ignored(workspace, words->front()); !why.empty()) {
      out.failure = "the profiler cannot be preloaded into " + words->front() + " (" + why +
                    "): its channel would be the program's to write";
      return out;
    }
  }
  if (channel) {
    const std::string lib = preload_path(opt_.step, opt_.profiler).string();
    extras.env.push_back("NVTX_INJECTION64_PATH=" + lib);
    for (std::string& e : profiler_channel_env(*channel, false)) extras.env.push_back(std::move(e));
    extras.preload.push_back(opt_.profiler);
    extras.inherit_fds.push_back(channel->fd());
  }
  ProcessResult r =
      run_step(opt_.step, machine_, command, workspace, problem.timeout_or_default(), extras);
  const std::string record_text = channel ? profile_channel_text(*channel) : "";

  if (!r.started) {
    out.failure = "judge: could not start the benchmark: " + r.error;
  } else if (r.timed_out) {
    out.failure = "the benchmark did not finish within " +
                  std::to_string(static_cast<int>(problem.timeout_or_default())) + " s";
  } else if (!r.limit_exceeded.empty()) {
    out.failure = "the benchmark was stopped: it " + r.limit_exceeded;
  } else if (r.signal != 0 || r.exit_code != 0) {
    out.failure =
        "the benchmark failed (" +
        (r.signal ? "signal " + std::to_string(r.signal) : "exit " + std::to_string(r.exit_code)) +
        "): " + first_output_line(HiddenLines(problem).redact(r.output));
  }
  if (out.failure.empty() && guard) {
    if (std::optional<std::string> early = guard->problem(r.exit_code))
      out.failure = "the benchmark run does not count: " + *early;
  }
  if (!out.failure.empty()) return out;

  std::optional<ProfileRecord> record;
  if (needs_profiler(mode) && !record_text.empty()) {
    try {
      record = parse_profile_record(record_text, channel->nonce());
    } catch (const std::exception& e) {
      out.failure = std::string("the profile record is unusable: ") + e.what();
      return out;
    }
  }
  TimeSelection sel = select_time(mode, record ? &*record : nullptr, r.output);
  if (!sel.ms) {
    out.failure = sel.not_timed;
    return out;
  }
  out.ms = sel.ms;
  out.how = sel.how;
  if (record) out.wall_ms = region_wall_ms(mode, *record);
  return out;
}

std::optional<std::string> region_host_gap(const std::vector<double>& solution_wall_ms,
                                           const std::vector<double>& solution_ms,
                                           const std::vector<double>& baseline_wall_ms,
                                           const std::vector<double>& baseline_ms) {
  if (solution_wall_ms.empty() || baseline_wall_ms.empty() || solution_ms.empty() ||
      baseline_ms.empty())
    return std::nullopt;
  const double sw = describe(solution_wall_ms).median, bw = describe(baseline_wall_ms).median;
  const double sk = describe(solution_ms).median, bk = describe(baseline_ms).median;
  if (!(sw > 1.5 * bw + 1.0) || !(sk < bk)) return std::nullopt;
  char b[400];
  std::snprintf(b, sizeof b,
                "the solution's timed region took %.3f ms of wall-clock time (median) against the "
                "baseline's %.3f ms, while its kernels took %.3f ms against %.3f ms: work may "
                "have moved off the GPU, where kernel time does not count it",
                sw, bw, sk, bk);
  return std::string(b);
}

BenchResult Benchmarker::time_pair(const BenchPair& pair, int gpu) const {
  const Problem& p = *pair.problem;
  BenchResult res;
  res.task_id = p.task_id;
  res.sample = pair.sample;
  res.group = p.group;
  res.gpu = gpu;
  auto t0 = std::chrono::steady_clock::now();
  auto finish = [&]() -> BenchResult {
    res.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return res;
  };
  if (!pair.baseline_problem.empty()) {
    res.not_timed = pair.baseline_problem;
    return finish();
  }
  if (std::string why = bench_unavailable(p, opt_.profiler); !why.empty()) {
    res.not_timed = why;
    return finish();
  }
  for (const PlannedRun& step : interleave_plan(opt_.runs, opt_.warmups)) {
    const bool baseline = step.who == 0;
    TimedRun run = time_once(p, baseline ? pair.baseline_ws : pair.solution_ws, gpu);
    if (!run.ms) {
      // One failed run makes the comparison unfair: stop here and say which side failed.
      res.not_timed = std::string(baseline ? "baseline" : "solution") +
                      (step.warmup ? " warm-up run: " : " run: ") + run.failure;
      return finish();
    }
    if (step.warmup) continue;
    (baseline ? res.baseline_ms : res.solution_ms).push_back(*run.ms);
    if (run.wall_ms)
      (baseline ? res.baseline_wall_ms : res.solution_wall_ms).push_back(*run.wall_ms);
    if (res.how.empty()) res.how = run.how;
  }
  try {
    if (auto gap = region_host_gap(res.solution_wall_ms, res.solution_ms, res.baseline_wall_ms,
                                   res.baseline_ms))
      res.flags.push_back({"region_host_time", *gap});
    res.baseline = describe(res.baseline_ms);
    res.solution = describe(res.solution_ms);
    res.speedup = speedup_interval(res.baseline_ms, res.solution_ms, opt_.confidence);
  } catch (const std::exception& e) {
    res.speedup.reset();
    res.not_timed = std::string("no speedup: ") + e.what();
  }
  return finish();
}

void Benchmarker::run(const std::vector<BenchPair>& pairs,
                      const std::function<void(const BenchResult&)>& done) {
  std::vector<int> gpus = opt_.gpus;
  if (gpus.empty())
    for (const auto& g : machine_.gpus) gpus.push_back(g.index);
  if (gpus.empty()) gpus.push_back(-1);  // host-only problems: one run at a time

  std::mutex mu;
  std::deque<const BenchPair*> queue;
  for (const auto& p : pairs) queue.push_back(&p);
  std::mutex done_mu;
  std::map<int, nlohmann::json> per_gpu;

  auto worker = [&](int gpu) {
    nlohmann::json cond;
    if (gpu >= 0)
      if (auto s = take_gpu_snapshot(gpu)) cond["start"] = to_json(*s);
    std::optional<GpuWatcher> watcher;
    if (gpu >= 0) watcher.emplace(gpu);
    for (;;) {
      const BenchPair* pair = nullptr;
      {
        std::lock_guard<std::mutex> lock(mu);
        if (queue.empty() || (opt_.stop && opt_.stop->load())) break;
        pair = queue.front();
        queue.pop_front();
      }
      BenchResult r = time_pair(*pair, gpu);
      std::lock_guard<std::mutex> lock(done_mu);
      done(r);
    }
    if (watcher) cond["during"] = to_json(watcher->stop());
    if (gpu >= 0)
      if (auto s = take_gpu_snapshot(gpu)) cond["end"] = to_json(*s);
    std::lock_guard<std::mutex> lock(done_mu);
    per_gpu[gpu] = cond;
  };
  std::vector<std::thread> threads;
  for (int g : gpus) threads.emplace_back(worker, g);
  for (auto& t : threads) t.join();

  conditions_ = nlohmann::json::object();
  warnings_.clear();
  for (auto& [gpu, cond] : per_gpu) {
    conditions_[std::to_string(gpu)] = cond;
    std::vector<std::string> slow;
    for (const char* phase : {"start", "during", "end"})
      if (cond.contains(phase))
        for (const auto& s : cond[phase]["slowdowns"]) slow.push_back(s.get<std::string>());
    if (!slow.empty()) {
      std::string list;
      for (const auto& s : slow)
        if (list.find(s) == std::string::npos) list += (list.empty() ? "" : ", ") + s;
      warnings_.push_back("GPU " + std::to_string(gpu) +
                          " was slowed down during the measurement (" + list +
                          "): timings on it may be off");
    }
  }
}

}  // namespace kjudge
