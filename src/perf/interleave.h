#pragma once
// The order in which the baseline's and a solution's benchmarks run: interleaved in pairs, so
// that the GPU's clocks, temperature and neighbours change under both sides alike.
#include <vector>

namespace kjudge {

struct PlannedRun {
  int who = 0;    // 0 = baseline, 1 = solution
  int index = 0;  // from 0, among that side's warm-up runs, or among its timed runs
  bool warmup = false;
};

// `warmups` pairs first, then `runs` pairs. Within each of the two phases the pairs alternate
// their order from baseline-first (B S, S B, B S, ...): ABBA, so a speed that drifts linearly
// over the phase costs both sides the same when `runs` is even, and at most one position's worth
// when it is odd. Throws std::invalid_argument unless runs >= 1 and warmups >= 0.
std::vector<PlannedRun> interleave_plan(int runs, int warmups);

}  // namespace kjudge
