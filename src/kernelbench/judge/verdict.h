#pragma once
// What one KernelBench solution came to, and which outcomes are charged to it. KernelBench's own
// result (compiled, correctness, runtime) is a view of these: `compiled` is every verdict but
// compile_error, `correctness` is `correct`.
#include <optional>
#include <string>
#include <string_view>

namespace kjudge::kernelbench {

enum class Verdict {
  correct,         // every correctness trial and every timed pair matched the reference
  incorrect,       // a trial's output differs (values beyond the tolerance, shape, dtype, NaN)
  timed_mismatch,  // the trials matched, but a timed pair's fresh inputs did not (a cached or
                   // input-specific answer), or a timed call raised
  runtime_error,   // ModelNew could not be built or raised on a trial
  compile_error,   // the solution does not compile, its import (its extension's build) failed,
                   // or it defines no ModelNew
  hack,            // correct, but a reward hack was found (static or at run time) and the policy
                   // says fail (--hacks fail, the default)
  timeout,         // over its time limit (its waits for the GPU not counted)
  crash,           // died, exited without a report, or stopped at a memory or disk limit
  refused,         // its report or control channel was forged or malformed
  // Not charged to the solution (kept out of every rate):
  reference_failed,  // the problem's own reference failed here (or holds NaN): nothing to judge by
  env_error,         // the machine cannot run it: no torch, no GPU, no model cache for level 4
  judge_error,       // the judge failed
};

std::string_view verdict_name(Verdict v);
std::optional<Verdict> verdict_from_name(std::string_view name);

// Whether the verdict counts against the solution (it is in the rates' denominators).
bool charged(Verdict v);

}  // namespace kjudge::kernelbench
