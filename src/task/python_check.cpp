#include "task/python_check.h"

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "run/process.h"
#include "triton/runner/python.h"

namespace kjudge::task {

namespace {

// One line of JSON; an import failure is reported, never raised.
constexpr const char* kProbe =
    "import json\n"
    "out = {}\n"
    "try:\n"
    "    import torch\n"
    "    out['torch'] = str(torch.__version__)\n"
    "    out['cuda'] = bool(torch.cuda.is_available())\n"
    "    out['gpus'] = int(torch.cuda.device_count()) if out['cuda'] else 0\n"
    "except Exception as e:\n"
    "    out['torch_error'] = '%s: %s' % (type(e).__name__, e)\n"
    "try:\n"
    "    import triton\n"
    "    out['triton'] = str(triton.__version__)\n"
    "except Exception:\n"
    "    pass\n"
    "print('KJUDGE-TASK-PYTHON ' + json.dumps(out))\n";

}  // namespace

std::string default_task_python() {
  const char* p = std::getenv("KJUDGE_PYTHON");
  return p && *p ? p : "python3";
}

TaskPython probe_task_python(const std::string& python, double timeout_s) {
  const triton::PythonEnv env = triton::probe_python(python, timeout_s);
  TaskPython py;
  py.executable = env.executable;
  py.version = env.version;
  py.ro_paths = env.ro_paths;
  ProcessSpec spec;
  spec.argv = {env.executable, "-I", "-c", kProbe};
  spec.timeout_s = timeout_s;
  const ProcessResult r = run_process(spec);
  const std::string tag = "KJUDGE-TASK-PYTHON ";
  const std::size_t at = r.output.rfind(tag);
  if (!r.ok() || at == std::string::npos)
    throw std::runtime_error("python '" + python + "' could not be asked about torch: " +
                             (r.started ? first_output_line(r.output) : r.error));
  const std::size_t end = r.output.find('\n', at);
  const nlohmann::json j = nlohmann::json::parse(
      r.output.substr(at + tag.size(), end == std::string::npos ? end : end - at - tag.size()),
      nullptr, false);
  if (!j.is_object())
    throw std::runtime_error("python '" + python + "' answered something that is not JSON");
  py.torch = j.value("torch", "");
  py.torch_error = j.value("torch_error", "");
  py.triton = j.value("triton", "");
  py.cuda = j.value("cuda", false);
  py.gpus = j.value("gpus", 0);
  return py;
}

std::string task_python_problem(const TaskPython& py, bool need_gpu) {
  const std::string who = py.executable + " (Python " + py.version + ")";
  const std::string how =
      "; GPU MODE's Python tasks need torch (and triton for Triton submissions): name an "
      "interpreter that has them with --python or $KJUDGE_PYTHON (on the GPU machine "
      "/opt/torch/.venv/bin/python)";
  if (py.torch.empty())
    return who + " cannot import torch" +
           (py.torch_error.empty() ? "" : " (" + py.torch_error + ")") + how;
  if (need_gpu && !py.cuda)
    return who + " has torch " + py.torch +
           " but it sees no CUDA GPU (a CPU-only build, or no driver here)" + how;
  return "";
}

}  // namespace kjudge::task
