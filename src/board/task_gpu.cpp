#include "board/task_gpu.h"

#include <system_error>

#include "run/gpu_probe.h"

namespace kjudge::board {

namespace fs = std::filesystem;

TaskGpu::TaskGpu(TaskGpuOptions options, MachineInfo machine)
    : opt_(std::move(options)), machine_(std::move(machine)) {}

bool TaskGpu::usable() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!usable_) {
    why_.clear();
    usable_ = probe(&why_);
  }
  return *usable_;
}

bool TaskGpu::recheck() {
  std::lock_guard<std::mutex> lock(mu_);
  why_.clear();
  usable_ = probe(&why_);
  return *usable_;
}

std::string TaskGpu::why() const {
  std::lock_guard<std::mutex> lock(mu_);
  return usable_ && !*usable_ ? why_ : "";
}

bool TaskGpu::probe(std::string* why) const {
  if (machine_.gpus.empty()) {
    *why = "no GPU on this machine (nvidia-smi lists none)";
    return false;
  }
  if (!opt_.probe) return true;
  const int gpu = machine_.gpus.front().index;
  const fs::path scratch = opt_.work_root / ("task-gpu-probe-" + std::to_string(gpu));
  std::error_code ec;
  fs::remove_all(scratch, ec);
  fs::create_directories(scratch, ec);
  std::string command = opt_.probe_command;
  if (command.empty()) {
    if (machine_.nvcc_path.empty()) return true;  // nothing to probe with: the list stands
    std::string error;
    const fs::path exe = build_gpu_probe(machine_.nvcc_path, opt_.cache_dir / "gpu-probe", &error);
    if (exe.empty()) return true;  // the judge's own fault says nothing about the GPU
    try {
      place_gpu_probe(exe, scratch);
    } catch (const std::exception&) {
      return true;
    }
    command = "./gpu-probe";
  }
  StepExtras extras;
  extras.env.push_back("CUDA_VISIBLE_DEVICES=" + std::to_string(gpu));
  const ProcessResult r = run_step(opt_.step, machine_, command, scratch, 60, extras);
  fs::remove_all(scratch, ec);
  if (r.ok()) return true;
  *why = "the GPU probe failed on GPU " + std::to_string(gpu) + ": " +
         (r.timed_out ? std::string("it did not finish in 60 s") : r.output.substr(0, 200));
  return false;
}

}  // namespace kjudge::board
