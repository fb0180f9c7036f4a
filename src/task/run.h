#pragma once
// Runs a built task (task/build.h) in one harness mode and reads what the harness reported:
//   test         every test case, each failure with its first mismatches;
//   benchmark    every benchmark case timed (harness/kjudge_harness.cu says how), every timed
//                output re-checked;
//   leaderboard  the ranked run: benchmarks on secret seeds, every timed output re-checked;
//   profile      one call of custom_kernel under Nsight Compute, summarised.
// Seeds: with a secret, every case's seed becomes kj::combine_seed(seed, secret) before the
// harness sees it. Benchmark and leaderboard runs have the judge's CUPTI profiler preloaded
// when it is at hand; what it saw is set against the events' times (task/cupti.h).
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/task_spec.h"
#include "eval/static_flags.h"
#include "eval/step_runner.h"
#include "kjudge/bench_stats.h"
#include "perf/harness_record.h"
#include "run/machine.h"
#include "task/build.h"
#include "task/cupti.h"
#include "task/popcorn_record.h"

namespace kjudge::task {

struct TaskRunOptions {
  StepSettings step;
  MachineInfo machine;
  int gpu = -1;  // -1: the process's default device
  std::optional<std::uint64_t> secret_seed;
  kj::StopRule benchmark_rule{10, 1000, 0.001, 10, 60};
  kj::StopRule ranked_rule{10, 1000, 0.001, 30, 120};
  double warmup_ms = 200;
  std::string ncu = "ncu";
  int profile_case = -1;  // which benchmark to profile; -1: the last
  // Benchmark mode timed as GPU MODE's CUDA harness does (host clock, one input, no L2 flush),
  // for comparison with kjudge's own timing only.
  bool gpumode_timing = false;
  // Where the harness puts tensors in benchmark and leaderboard runs: "arena" (random places in
  // one allocation, harness/kjudge/arena.cuh; the default since it held softmax's invocation
  // means within 0.6 % where cudaMalloc per tensor spread them by up to 9 %) or "malloc".
  std::string placement = "arena";
  // The CUPTI profiler library preloaded into benchmark and leaderboard runs (not with
  // gpumode_timing). nullopt: locate_profiler() (perf/benchmarker.h); an empty path: none.
  std::optional<std::filesystem::path> profiler;
  // Test, benchmark and leaderboard modes in two processes (the build's kjudge_checker and
  // kjudge_worker, TaskBuildOptions::isolate): the submission cannot reach the harness's memory,
  // its report or its clock (harness/kjudge/split_call.cuh). The CUPTI profiler is not used
  // there (it would sit in the submission's process).
  bool isolate = false;
  // The Python harnesses (kjudge's, python/kjudge_gpumode_runner.py, and the task's own eval.py):
  // the interpreter, as the sandbox runs it, and the host folders it reads (bound read-only).
  std::string python;
  std::vector<std::filesystem::path> python_paths;
  // kjudge's Python harness: its entry script (python/kjudge_gpumode_runner.py, with the
  // package python/kjudge_gpumode/ beside it).
  std::filesystem::path python_runner;
};

struct ModeRun {
  std::string harness = "kjudge";  // "task": the task's own harness wrote `popcorn`
  std::string mode;
  bool completed = false;  // the harness ran to its end and its report was accepted
  bool passed = false;
  std::string failure;           // why not completed or not passed, in one line
  bool channel_refused = false;  // the report was not the harness's own: a cheat flag
  bool isolated = false;         // run as checker and worker (TaskRunOptions::isolate)
  HarnessReport report;
  std::string log;  // the harness's stdout and stderr (capped)
  double seconds = 0;
  nlohmann::json profile;   // profile mode: summarize_ncu()
  std::string profile_log;  // profile mode: the raw ncu CSV (capped)
  // The static pass over the submission (eval/static_flags.h), with the task's forbidden list:
  // every stage carries them (`cheat_flags`), so each record a service keeps has them.
  std::vector<StaticFlag> flags;
  // Benchmark and leaderboard modes: what the CUPTI profiler saw, or why it was not used.
  TaskCupti cupti;
  // The task's own harness: what it wrote on POPCORN_FD (task/own_harness.h).
  std::optional<PopcornRecord> popcorn;
};

// The case lines the harness gets for `cases`, seeds combined with `secret` when given.
std::string task_cases_text(const std::vector<TaskCase>& cases,
                            const std::optional<std::uint64_t>& secret);

ModeRun run_task_mode(const TaskSpec& task, const TaskBuild& build, const std::string& mode,
                      const TaskRunOptions& options);

// Why a run of `mode` (with GPU MODE's timing or not) stays in one process even when
// TaskRunOptions::isolate asks for two, in one line; "" when it can be isolated. Profile mode
// needs Nsight Compute around the harness's own call, and --timing gpumode is GPU MODE's
// one-process loop kept for comparison: the checker runs neither.
std::string isolation_unsupported(const std::string& mode, bool gpumode_timing);

// What `kjudge task run` and `task build` do about isolation. Isolated is the default, since
// in one process a submission can read the harness's memory and forge its report
// (tests/cheats/task/forge_report_memory.cu); a mode that cannot be isolated falls back to one
// process rather than fail, with the reason given.
struct TaskIsolation {
  bool isolate = false;  // the build makes kjudge_checker and kjudge_worker; every stage is split
  std::string why_not;   // when not isolated: why, in one line
  // An --isolate the user gave explicitly that the mode cannot honour: a warning, where the
  // default given up is only a note.
  bool overridden = false;
};
// `wanted`: --isolate / --no-isolate, or the default (true); `explicit_choice`: the user named
// one of them; `mode`: "build" for `task build` (which builds what a test run would run).
TaskIsolation task_isolation(bool wanted, bool explicit_choice, const std::string& mode,
                             bool gpumode_timing);

// GPU MODE's score: each benchmark's mean time, then the last, the mean or the geometric mean of
// them (task.yml ranking_by). Lower is better. nullopt when there is nothing to score.
std::optional<double> task_score(RankingBy by, const std::vector<double>& benchmark_means);

// A cheat flag's reason when a benchmark's host time (call + device-wide synchronize) is far
// above its CUDA-event time on the default stream (medians, ns); nullopt when they agree.
std::optional<std::string> timing_gap(double event_median_ns, double host_median_ns);

// An isolated run's cheat flag: the checker's events (which the worker cannot touch) saw more
// per call, beyond what crossing between the processes costs (`crossing_ns`), than the worker's
// own events reported: work outside the worker's timed stream, or a time the worker made up.
// Medians in ns; nullopt when they agree within a quarter of the worker's time and 40 µs.
std::optional<std::string> isolated_time_gap(double worker_median_ns, double checker_median_ns,
                                             double crossing_ns);

// The stage as JSON: cases with their figures (times in µs), the failure, the log, and
// `cheat_flags` (the static pass's, and timing_gap's).
nlohmann::json to_json(const ModeRun& run, const TaskSpec& task);

// Every distinct `cheat_flags` entry of the stages (to_json above), once each, in the order
// first seen, each object given `stages`: the modes that carried it. The static pass's flags
// come with every stage, so without this a reader would see them once per stage, or, reading
// only the top of task-run.json, not at all.
nlohmann::json lift_stage_flags(const nlohmann::json& stages);

}  // namespace kjudge::task
