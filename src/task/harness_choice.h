#pragma once
// Which harness runs a task: kjudge's own (the CUDA harness of harness/ for kjudge-form `lang:
// cu` tasks, the Python harness of python/kjudge_gpumode/ for `lang: py` ones) or, with
// `--harness task`, the task's own GPU MODE harness (its eval.py, or its eval.cu compiled with
// the submission), run exactly as GPU MODE's runner does.
#include <string>

#include "core/task_spec.h"

namespace kjudge::task {

enum class HarnessKind {
  kjudge_cuda,    // harness/kjudge_harness.cu with the task's reference.cuh (docs/tasks.md)
  kjudge_python,  // python/kjudge_gpumode_runner.py: checker and worker processes
  task_python,    // the task's config.main (eval.py) under the task's own protocol
  task_cuda,      // the task's eval.cu compiled with the submission, its own protocol
};

// "kjudge" or "task", as task-run.json's `harness` says.
const char* harness_name(HarnessKind kind);
bool is_python(HarnessKind kind);
bool is_task_own(HarnessKind kind);

struct HarnessChoice {
  HarnessKind kind = HarnessKind::kjudge_cuda;
  std::string why_not;  // non-empty: this task cannot run with the harness asked for, and why
};

// `requested`: "kjudge" (the default, also for "") or "task".
HarnessChoice choose_harness(const TaskSpec& task, const std::string& requested);

}  // namespace kjudge::task
