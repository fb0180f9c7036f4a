#pragma once
// GPU efficiency in the Triton judge (triton/judge/eval.h; docs/triton.md, "GPU efficiency"): what
// a timed candidate and its reference achieve of the GPU's measured peaks. Internal to the judge
// (eval_timing.cpp); the peaks' file is read by read_gpu_peaks (triton/judge/eval.h).
#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "triton/judge/eval.h"

namespace kjudge::triton {

// The sum of the sites' byte counts, or -1 when a site has none.
std::int64_t bytes_of(const std::vector<TritonCallSite>& sites);

// Achieved bytes/s and FLOP/s of both sides: the operator's work (stated, or the runner's lower
// bound on bytes) over the geometric mean of the per-round sums of medians; over the measured
// peaks when they were measured on the GPU these runs report (`env`, the last timing run's).
// Sets r.work, and r.efficiency_note where a number is missing.
nlohmann::ordered_json efficiency_json(const TritonEvalOptions& opt, TritonJobResult& r,
                                       const nlohmann::ordered_json& env);

}  // namespace kjudge::triton
