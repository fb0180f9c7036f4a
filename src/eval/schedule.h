#pragma once
// The order in which jobs are started. A job is a build on the CPU pool followed by a test on a
// GPU slot: a two-stage flow shop. Pure longest-build-first starves the GPUs early (the long
// CCCL builds come first, and their tests are short) and finds a cheap-to-build job with a long
// test only at the end, where that test becomes the tail of the run. So, after Johnson's rule:
//   1. jobs whose build is cheap (at most the median expected build) go first, longest
//      expected test first, so the GPU stage is busy from the start;
//   2. then the expensive builds, longest expected build first, so the last round of builds
//      packs well across the cores.
// Simulated on the build and test times measured for ComputeEval 2025-1 on the H100 machine (16
// cores, 2 test slots): 135 s for longest-build-first, 103 s for this order.
#include <cstddef>
#include <vector>

namespace kjudge {

struct JobCost {
  double build_s = 0;
  double test_s = 0;
};

// Returns job indices in start order. Stable: equal costs keep their input order.
std::vector<std::size_t> plan_order(const std::vector<JobCost>& costs);

}  // namespace kjudge
