#pragma once
// The Python a GPU MODE task runs in (kjudge's Python harness and the task's own eval.py): an
// interpreter with torch (and, for Triton submissions, triton), found before anything starts so
// that a missing package is one clear message rather than a traceback from inside the sandbox.
#include <filesystem>
#include <string>
#include <vector>

namespace kjudge::task {

// --python's default: $KJUDGE_PYTHON when set, else "python3" (on the GPU machine,
// /opt/torch/.venv/bin/python).
std::string default_task_python();

struct TaskPython {
  std::string executable;                       // absolute, as the sandbox runs it
  std::string version;                          // "3.12.3"
  std::string torch;                            // torch.__version__; "" without torch
  std::string torch_error;                      // why torch did not import
  std::string triton;                           // triton.__version__; "" without triton
  bool cuda = false;                            // torch.cuda.is_available()
  int gpus = 0;                                 // torch.cuda.device_count()
  std::vector<std::filesystem::path> ro_paths;  // host folders to bind read-only in the sandbox
};

// Asks `python` (outside the sandbox, with no task code) what it is and what it holds. Throws
// std::runtime_error when it cannot be run at all.
TaskPython probe_task_python(const std::string& python, double timeout_s = 120);

// Why this interpreter cannot run Python tasks, in one line naming it and what to do; "" when
// it can. `need_gpu`: a run (not a build) needs torch to see a CUDA GPU.
std::string task_python_problem(const TaskPython& py, bool need_gpu);

}  // namespace kjudge::task
