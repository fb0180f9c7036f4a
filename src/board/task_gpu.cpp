#include "board/task_gpu.h"

#include <unistd.h>

#include <system_error>

#include "run/gpu_probe.h"
#include "run/process.h"

namespace kjudge::board {

namespace fs = std::filesystem;

TaskGpu::TaskGpu(TaskGpuOptions options, MachineInfo machine)
    : opt_(std::move(options)), machine_(std::move(machine)) {
  // The sandbox binds the probe's folder by its path: a relative one (the service leaves the
  // work root to the evaluator, which picks it alone) would make the probe fail before it ran
  // and refuse every task on a good GPU, as on the H100 (2026-11-27).
  if (opt_.work_root.empty())
    opt_.work_root = fs::temp_directory_path() / ("kjudge-work-" + std::to_string(getpid()));
  opt_.work_root = fs::absolute(opt_.work_root);
}

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
  std::string said =
      r.timed_out ? std::string("it did not finish in 60 s") : first_output_line(r.output, 200);
  if (said.empty())
    said = !r.started      ? "it did not start: " + r.error
           : r.signal != 0 ? "killed by signal " + std::to_string(r.signal) + ", no output"
           : !r.limit_exceeded.empty() ? r.limit_exceeded
                                       : "exit " + std::to_string(r.exit_code) + ", no output";
  *why = "the GPU probe failed on GPU " + std::to_string(gpu) + ": " + said;
  return false;
}

}  // namespace kjudge::board
