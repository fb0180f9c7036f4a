#pragma once
// What the model is told after a failed turn (`--turns`): the compiler's errors or the test's
// output, never the hidden tests themselves. Compilers quote the offending source line, and a
// failing assert prints its expression: the log is redacted (eval/hidden_lines.h) before the
// text leaves the judge.
#include <cstddef>
#include <string>

#include "core/problem.h"
#include "eval/graded.h"
#include "eval/hidden_lines.h"  // redact_test_source

namespace kjudge {

// The user message for the next turn: what failed (build, test, timeout, crash, ...), the
// redacted log cut to its last `cap` bytes, and the request to answer again with complete
// files. Empty for a pass (there is no next turn).
std::string judge_feedback(const GradedSolution& graded, const Problem& problem,
                           std::size_t cap = 4000);

}  // namespace kjudge
