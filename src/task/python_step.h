#pragma once
// What a Python task's step (kjudge's harness or the task's own eval.py) needs beyond the
// sandbox's defaults: a submission that builds CUDA through torch.utils.cpp_extension.load_inline
// runs ninja and nvcc, which torch looks for on PATH, so the interpreter's own bin/ (a venv's,
// where its ninja is) goes first; the extension's build folder is the run's workspace, so no
// other run's code can plant a library there, and its parallel compile jobs are bounded.
#include <filesystem>
#include <string>

#include "eval/step_runner.h"

namespace kjudge::task {

void add_python_task_env(kjudge::StepExtras& extras, const std::string& python,
                         const std::filesystem::path& workspace);

}  // namespace kjudge::task
