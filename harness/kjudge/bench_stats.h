#pragma once
// Statistics of one benchmark's timed runs and the rule that decides when to stop timing.
// Shared by the task harness (which applies the rule while it runs) and the judge (which
// recomputes the figures from the raw times it receives, and tests the rule on the CPU).
// Plain C++, no CUDA.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace kj {

struct RunStats {
  int runs = 0;
  double mean = 0, median = 0, std = 0, err = 0, best = 0, worst = 0;  // units of the input
};

// std: the sample standard deviation (n - 1); err: the standard error of the mean, std / sqrt(n).
inline RunStats summarize_runs(std::vector<double> xs) {
  RunStats s;
  s.runs = static_cast<int>(xs.size());
  if (xs.empty()) return s;
  std::sort(xs.begin(), xs.end());
  const std::size_t n = xs.size();
  double sum = 0;
  for (double x : xs) sum += x;
  s.mean = sum / n;
  s.median = n % 2 ? xs[n / 2] : (xs[n / 2 - 1] + xs[n / 2]) / 2;
  s.best = xs.front();
  s.worst = xs.back();
  if (n > 1) {
    double ss = 0;
    for (double x : xs) ss += (x - s.mean) * (x - s.mean);
    s.std = std::sqrt(ss / (n - 1));
    s.err = s.std / std::sqrt(static_cast<double>(n));
  }
  return s;
}

struct StopRule {
  // Never fewer, so the error estimate means something: from 3 runs a standard error is itself
  // uncertain by half, and on the H100 invocations that stopped there as `precise` (the arena's
  // calls vary little) had means up to 0.8 % from the others' (vectoradd 16M, 2026-11-23).
  int min_runs = 10;
  int max_runs = 1000;            // never more
  double target_rel_err = 0.001;  // stop once err / mean is below this (0.1 %)
  double max_timed_s = 10;        // stop once the timed calls together took this long
  double max_wall_s = 60;         // stop once the benchmark (inputs, checks, flushes) took this
};

enum class StopReason { none, precise, max_runs, timed_budget, wall_budget };

inline const char* to_string(StopReason r) {
  switch (r) {
    case StopReason::precise:
      return "precise";
    case StopReason::max_runs:
      return "max_runs";
    case StopReason::timed_budget:
      return "timed_budget";
    case StopReason::wall_budget:
      return "wall_budget";
    default:
      return "none";
  }
}

// Whether to stop after the runs in `times` (any unit), which took `timed_s` of timed calls and
// `wall_s` of wall time in all.
inline StopReason should_stop(const StopRule& rule, const std::vector<double>& times,
                              double timed_s, double wall_s) {
  const int n = static_cast<int>(times.size());
  if (n >= rule.max_runs) return StopReason::max_runs;
  if (n < rule.min_runs) {
    // Even the minimum yields to the budgets, so one very slow kernel cannot hang a run: the
    // wall budget at once, the timed one from 3 runs (an error estimate still comes out).
    if (wall_s > rule.max_wall_s && n >= 1) return StopReason::wall_budget;
    if (timed_s >= rule.max_timed_s && n >= 3) return StopReason::timed_budget;
    return StopReason::none;
  }
  RunStats s = summarize_runs(times);
  if (s.mean > 0 && s.err / s.mean < rule.target_rel_err) return StopReason::precise;
  if (timed_s >= rule.max_timed_s) return StopReason::timed_budget;
  if (wall_s >= rule.max_wall_s) return StopReason::wall_budget;
  return StopReason::none;
}

}  // namespace kj
