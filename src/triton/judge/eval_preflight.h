#pragma once
// Before the first operator of a `kjudge triton eval`: one runner process, in the sandbox as
// every run, with no operator code, says whether this machine can run any of them (the
// interpreter imports torch and triton, torch sees a GPU). A machine that cannot stops the run
// with one message instead of a judge_error per operator.
#include <filesystem>
#include <string>

#include "triton/runner/run.h"

namespace kjudge::triton {

// Empty when the runner can judge here; otherwise why not, in one sentence that says what to
// install or which option to change.
std::string triton_preflight(const TritonRunner& runner, const std::filesystem::path& workspace);

}  // namespace kjudge::triton
