#pragma once
// Timing in the Triton judge (triton/judge/eval.h; docs/triton.md): a correct candidate and its
// reference timed in interleaved processes, one at a time, every timed call's output checked
// against the reference's, the speedup and what withholds it (a timed mismatch, CUPTI's record
// contradicting the events). Internal to the judge (eval.cpp).
#include <functional>
#include <string>

#include "triton/judge/eval.h"

namespace kjudge::triton {

// Times reference and candidate in interleaved rounds (perf/interleave.h: pairs alternating
// which side goes first, warm-up pairs first and discarded), one process each, and computes the
// speedup over the timed rounds. Both sides' processes pay the same per-process costs (a fresh
// Triton cache, the JIT, the allocator); the order alternating is what removes the bias of
// always timing one side first. Every timed call's output is checked (TritonTimedCheck): the
// reference's first process, always the first of the plan, decides which arguments get new
// content and hands that plan, with the job's secret, to every later process; a candidate whose
// timed outputs differ from the reference's on the same inputs gets no speedup, and the verdict
// timed_mismatch.
void time_job(const TritonEvalOptions& opt, TritonJobResult& r, const TritonRunOutcome& reference,
              const std::string& base,
              const std::function<void(const std::string&, const TritonRunOutcome&)>& report);

}  // namespace kjudge::triton
