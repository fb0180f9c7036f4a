#include "board/service_python.h"

#include <unistd.h>

#include <stdexcept>

#include "run/beside_binary.h"
#include "run/machine_fault.h"
#include "run/process.h"

namespace kjudge::board {

namespace {

// Torch's own use of the GPU, as the harness's first step makes it (python/kjudge_gpumode/
// checker.py calls torch.cuda.init() before anything of the task), and then a tensor read back:
// a device listed but not usable (held by another process in exclusive mode, a driver too old
// for torch's CUDA) fails here.
constexpr const char* kGpuUse =
    "import torch\n"
    "torch.cuda.init()\n"
    "x = torch.ones(4, device='cuda')\n"
    "assert float(x.sum().item()) == 4.0, 'the GPU computed a wrong sum'\n"
    "print('KJUDGE-GPU-OK')\n";

// A traceback's last line names the error.
std::string last_line(const std::string& out) {
  std::size_t end = out.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return "no output";
  std::size_t start = out.rfind('\n', end);
  start = start == std::string::npos ? 0 : start + 1;
  return out.substr(start, std::min<std::size_t>(end + 1 - start, 300));
}

}  // namespace

ServicePython::ServicePython(const std::string& python)
    : name_(python.empty() ? task::default_task_python() : python) {
  try {
    probed_ = task::probe_task_python(name_);
  } catch (const std::exception& e) {
    start_why_ = std::string("the service's Python: ") + e.what();
    return;
  }
  // A service judges (never only builds): torch must see a GPU.
  if (std::string why = task::task_python_problem(*probed_, true); !why.empty()) {
    start_why_ = "the service's Python: " + why;
    return;
  }
  try {
    gpumode_runner_ = locate_python_entry("kjudge_gpumode_runner.py", "KJUDGE_GPUMODE_RUNNER",
                                          "kjudge's Python task harness");
  } catch (const std::exception& e) {
    start_why_ = e.what();
  }
}

std::string ServicePython::why() const {
  if (!start_why_.empty()) return start_why_;
  std::lock_guard lock(mu_);
  return fault_why_;
}

bool ServicePython::failed_recheck() const {
  std::lock_guard lock(mu_);
  return start_why_.empty() && !fault_why_.empty();
}

bool ServicePython::recheck_gpu(int gpu, double timeout_s) {
  if (!probed_) return false;
  ProcessSpec spec;
  spec.argv = {probed_->executable, "-I", "-c", kGpuUse};
  spec.timeout_s = timeout_s;
  if (gpu >= 0) {
    std::vector<std::string> env;
    for (char** e = environ; e && *e; ++e)
      if (std::string(*e).rfind("CUDA_VISIBLE_DEVICES=", 0) != 0) env.emplace_back(*e);
    env.push_back("CUDA_VISIBLE_DEVICES=" + std::to_string(gpu));
    spec.env = env;
  }
  const ProcessResult r = run_process(spec);
  std::lock_guard lock(mu_);
  if (r.ok() && r.output.find("KJUDGE-GPU-OK") != std::string::npos) {
    fault_why_.clear();
    return true;
  }
  const std::string said = r.timed_out
                               ? "it did not finish in " + std::to_string(int(timeout_s)) + " s"
                           : r.started ? last_line(r.output)
                                       : r.error;
  fault_why_ =
      "the service's Python: torch in " + probed_->executable + " cannot use GPU " +
      std::to_string(gpu) + " (" + said +
      "); Python tasks and KernelBench are refused until it can (asked again every minute)";
  return false;
}

bool reads_as_gpu_unusable(const std::string& text) {
  // cudaErrorDevicesUnavailable as CUDA 12 and later word it (machine_fault() has the older
  // wording), which torch raises for a device another process holds in exclusive mode.
  return !machine_fault(text).empty() ||
         text.find("kjudge harness: torch with a CUDA GPU is needed") != std::string::npos ||
         text.find("CUDA-capable device(s) is/are busy or unavailable") != std::string::npos;
}

}  // namespace kjudge::board
