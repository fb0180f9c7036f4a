#include "task/harness_choice.h"

#include <filesystem>

namespace kjudge::task {

const char* harness_name(HarnessKind k) { return is_task_own(k) ? "task" : "kjudge"; }

bool is_python(HarnessKind k) {
  return k == HarnessKind::kjudge_python || k == HarnessKind::task_python;
}

bool is_task_own(HarnessKind k) {
  return k == HarnessKind::task_python || k == HarnessKind::task_cuda;
}

namespace {

bool has_file(const TaskSpec& t, const std::string& base) {
  for (const auto& f : t.files)
    if (std::filesystem::path(f.name).filename() == base) return true;
  return false;
}

}  // namespace

HarnessChoice choose_harness(const TaskSpec& t, const std::string& requested) {
  HarnessChoice c;
  if (requested == "task") {
    if (t.lang == "py") {
      c.kind = HarnessKind::task_python;
      if (t.main.empty())
        c.why_not =
            "--harness task runs the task's own script, config.main of task.yml (GPU MODE's "
            "eval.py), and this task names none";
    } else {
      c.kind = HarnessKind::task_cuda;
      if (!t.brings_eval_cu())
        c.why_not =
            "--harness task runs the task's own eval.cu, and this task's files have none: it is "
            "written for kjudge's harness (run it without --harness task)";
    }
    return c;
  }
  if (!requested.empty() && requested != "kjudge") {
    c.why_not = "--harness must be kjudge or task, not '" + requested + "'";
    return c;
  }
  if (t.lang == "py") {
    c.kind = HarnessKind::kjudge_python;
    if (!has_file(t, "reference.py"))
      c.why_not =
          "kjudge's Python harness imports the task's reference.py (generate_input, "
          "check_implementation or ref_kernel), and this task's files have none";
    return c;
  }
  c.kind = HarnessKind::kjudge_cuda;
  if (t.brings_eval_cu())
    c.why_not =
        "the task brings its own harness (eval.cu) written to GPU MODE's CUDA contract "
        "(TestReporter, check_implementation), which kjudge's CUDA harness does not run: run it "
        "with --harness task (the report then says harness: task), or rewrite it for kjudge's "
        "contract (docs/tasks.md: generate_input, ref_kernel and tolerance in reference.cuh)";
  return c;
}

}  // namespace kjudge::task
