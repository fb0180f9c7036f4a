#pragma once
// Grading in the Triton judge (triton/judge/eval.h): a candidate's verdict from its test-mode run
// against the reference's, on the basis the reference gives (the test's result, or the entry
// calls' outputs), and whether the reference agrees with itself (docs/triton.md,
// "Self-inconsistent references"). Internal to the judge (eval.cpp, eval_timing.cpp,
// eval_json.cpp).
#include <optional>
#include <set>
#include <string>

#include "triton/judge/eval.h"

namespace kjudge::triton {

// Whether a known test defect takes entries out of the test's result (skip_entries).
bool skips_entries(const std::optional<TritonDefect>& d);

// `o` without the entries named in `names`.
OutputSet without(const OutputSet& o, const std::set<std::string>& names);

// The candidate's verdict from its own run, the reference's, and whether the reference agrees
// with itself.
void grade(TritonJobResult& r, const TritonRunOutcome& ref, const TritonReferenceCheck& check);

// Whether a reference agrees with itself: its first run against `second` (a second reference
// run, or the --self candidate's run; null where none was made), `second_name` saying which.
TritonReferenceCheck check_reference(const TritonRunOutcome& ref, const TritonRunOutcome* second,
                                     const std::string& second_name,
                                     const std::optional<TritonDefect>& defect);

}  // namespace kjudge::triton
