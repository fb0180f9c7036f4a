#pragma once
// What a task's build or harness step that did not end well is told as: one wording for
// kjudge's harness and the task's own, so that the same fault reads the same in both reports.
#include <optional>
#include <string>

#include "run/process.h"
#include "task/build.h"

namespace kjudge::task {

// The build's failure (and whether it is the judge's) in `b`; true when it built.
bool note_build_outcome(const ProcessResult& r, double timeout_s, TaskBuild& b);

// Why a harness step failed before its record could be read: it did not start (the judge's),
// timed out under task.yml's limit for `mode`, was stopped at a limit, or died of a signal
// (`crash_line`: what of its output says where). Nothing when it ended on its own.
std::optional<std::string> harness_step_failure(const ProcessResult& r, double timeout_s,
                                                const std::string& mode, const std::string& what,
                                                const std::string& crash_line);

}  // namespace kjudge::task
