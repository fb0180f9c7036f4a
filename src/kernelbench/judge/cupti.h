#pragma once
// What the judge's CUPTI profiler (src/perf/profiler, preloaded into the runner) saw of a
// KernelBench run, placed by the runner's marks (every call of a model on the profiler's clock:
// kernelbench/runner/run.h, CuptiMarks). Every kernel, copy and memset of the process is placed
// by the time its launch was made:
//   - inside a call of the solution, the reference or the compiled reference: that side's work.
//     The kernel names of both sides are listed; where most of the solution's GPU time is spent
//     in kernels the reference's calls ran too, ModelNew called the reference's own operators
//     (`reference_kernels`, a warning: a fusion that keeps cuDNN's convolution does too);
//   - inside a timed solution call, its GPU busy time (the union of its work's intervals) can
//     not exceed the time the events gave the call: a call reported faster than the GPU worked
//     in it is a time no honest event pair gives (`cupti_below`, a hack);
//   - outside every call while the timed pairs ran, launched by a thread that is not the
//     runner's: the solution's own threads working beside the timed calls (`cupti_outside`, a
//     hack). The runner's own work between the calls (the flush, the fresh inputs, the check) is
//     launched from its thread and not counted.
#include <nlohmann/json.hpp>
#include <vector>

#include "kernelbench/checks/static_check.h"
#include "kernelbench/runner/run.h"

namespace kjudge::kernelbench {

struct CuptiEvidence {
  bool used = false;
  std::string why;  // when not used
  std::vector<Finding> findings;
  nlohmann::ordered_json json = nullptr;  // the result's `cupti` object
};

// Never throws: a record that cannot be read leaves it unused, saying why.
CuptiEvidence cupti_evidence(const RunOutcome& o);

}  // namespace kjudge::kernelbench
