#pragma once
// Timed runs of ComputeEval benchmarks (issue 4): a solution's `benchmark_command` and the
// baseline solution's, interleaved on a GPU held alone (one run at a time per GPU, nothing else
// on the machine: the evaluator has finished), warm-up runs discarded, each run timed by the
// problem's timing mode through the CUPTI profiler (src/perf/profiler), whose record comes back
// over a memfd only the judge and the timed process hold, tagged with a per-run nonce.
#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/problem.h"
#include "eval/step_runner.h"
#include "perf/stats.h"
#include "run/machine.h"

namespace kjudge {

struct BenchOptions {
  int runs = 5;                    // timed runs per side
  int warmups = 1;                 // discarded runs per side, before the timed ones
  std::vector<int> gpus;           // GPU indices to use; empty: all of the machine's
  std::filesystem::path profiler;  // libkjudge_profiler.so; empty: profiler modes not timed
  // libkjudge_main_guard.so (run/main_return.h): a timed run counts only when the program's
  // main() returned. nullopt: locate_main_guard(); an empty path: no guard.
  std::optional<std::filesystem::path> main_guard;
  double confidence = 0.95;
  StepSettings step;
  // Set (from a signal handler) to stop after the comparisons in flight; what finished stays.
  const std::atomic<bool>* stop = nullptr;
};

// One solution to time against its problem's baseline, both already built in workspaces.
struct BenchPair {
  const Problem* problem = nullptr;
  int sample = 0;
  std::filesystem::path solution_ws;
  std::filesystem::path baseline_ws;
  // Set when the baseline cannot be timed at all (it failed its own test here, say): every
  // pair of the problem is not_timed with this reason, without running anything.
  std::string baseline_problem;
};

// A run-time flag of a comparison: a reason for a person to look, never a verdict.
struct BenchFlag {
  std::string check;  // region_host_time
  std::string detail;
};

struct BenchResult {
  std::string task_id;
  int sample = 0;
  std::string group;
  int gpu = -1;
  std::vector<double> solution_ms, baseline_ms;  // the timed runs, in the order they ran
  std::optional<Spread> solution, baseline;
  std::optional<RatioInterval> speedup;  // baseline / solution
  std::string not_timed;                 // why there is no speedup
  std::string how;                       // what one run's time is, e.g. "region bench_region: …"
  double wall_s = 0;
  // Region modes timed by kernel time: each run's wall-clock time in the timed region
  // (timing_select.h, region_wall_ms), in the order they ran; empty otherwise.
  std::vector<double> solution_wall_ms, baseline_wall_ms;
  std::vector<BenchFlag> flags;  // perf.jsonl's `cheat_flags`, with source "timing"
};
nlohmann::json to_json(const BenchResult& r);

// Whether a solution's timed region took the host much longer than the baseline's while its
// kernels took less: work may have moved off the GPU (computed on the host inside the region),
// where kernel time does not count it. Medians over the runs; flagged when the solution's
// region wall-clock time is above 1.5 x the baseline's + 1 ms and its kernel time below the
// baseline's. The detail in words, or nullopt.
std::optional<std::string> region_host_gap(const std::vector<double>& solution_wall_ms,
                                           const std::vector<double>& solution_ms,
                                           const std::vector<double>& baseline_wall_ms,
                                           const std::vector<double>& baseline_ms);

// What one run of one side gave.
struct TimedRun {
  std::optional<double> ms;
  std::optional<double> wall_ms;  // region modes timed by kernel time: the region's wall clock
  std::string failure;            // when !ms: why
  std::string how;
};

class Benchmarker {
 public:
  Benchmarker(BenchOptions options, MachineInfo machine);

  // Times every pair; `done` is called once per pair, from one thread at a time.
  void run(const std::vector<BenchPair>& pairs,
           const std::function<void(const BenchResult&)>& done);

  // One run of `problem`'s benchmark in `workspace` on `gpu`, timed by its timing mode.
  TimedRun time_once(const Problem& problem, const std::filesystem::path& workspace, int gpu) const;

  // Per GPU: snapshots at the start and end of its measurements, what the watcher saw in
  // between, and warnings (throttling). Filled by run().
  const nlohmann::json& conditions() const { return conditions_; }
  std::vector<std::string> warnings() const { return warnings_; }

 private:
  BenchResult time_pair(const BenchPair& pair, int gpu) const;

  BenchOptions opt_;
  MachineInfo machine_;
  nlohmann::json conditions_ = nlohmann::json::object();
  std::vector<std::string> warnings_;
};

// Why a problem's timing cannot be measured by this judge here ("" when it can): no
// benchmark_command, a bad timing_mode, a profiler mode without the profiler library.
std::string bench_unavailable(const Problem& problem, const std::filesystem::path& profiler);

// The profiler library beside the kjudge binary (lib/ or the binary's own directory), or
// $KJUDGE_PROFILER; empty when none is found.
std::filesystem::path locate_profiler();

}  // namespace kjudge
