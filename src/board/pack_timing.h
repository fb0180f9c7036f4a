#pragma once
// The timed half of a pack board's ranked run: a solution that passed its tests is timed against
// its problem's baseline by the same benchmark stage as `kjudge evaluate --benchmark`
// (perf/bench_stage.h), and its median time becomes the run's score.
#include <atomic>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/problem.h"
#include "eval/evaluator.h"
#include "eval/graded.h"
#include "perf/benchmarker.h"
#include "run/machine.h"

namespace kjudge::board {

struct PackTiming {
  nlohmann::json perf;          // the perf.jsonl row: speedup vs the baseline, medians, runs
  std::optional<double> score;  // the solution's median in microseconds; none when not timed
  std::string not_timed;        // why there is no score
};

// `graded` is the solution's passing correctness verdict; `solution` its files.
PackTiming time_pack_solution(const Problem& problem, const Solution& solution,
                              const GradedSolution& graded, const EvalOptions& eval,
                              const BenchOptions& bench, const MachineInfo& machine,
                              const std::atomic<bool>* stop);

// The timing's run-time flags (the perf row's `cheat_flags`: region_host_time) joined to the
// result's own `cheat_flags` (the static pass's), where the board's review hold, the run's page
// and its submitter look. `perf` not an object, or without flags: nothing changes.
void add_timing_flags(nlohmann::json& result, const nlohmann::json& perf);

}  // namespace kjudge::board
