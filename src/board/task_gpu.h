#pragma once
// Whether this worker can run task jobs: a task's submission runs CUDA, so on a machine whose
// GPU is missing or unusable every task would fail with the machine's error
// (cudaErrorInsufficientDriver) and be charged to its submitter (issue 32). The worker asks its
// GPU, with the judge's own probe (run/gpu_probe.h), before it takes task jobs, and again after
// a task run whose output names a machine fault: then the run is not recorded, and the job goes
// back to the queue for a worker that can judge it.
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>

#include "eval/step_runner.h"
#include "run/machine.h"

namespace kjudge::board {

struct TaskGpuOptions {
  StepSettings step;
  bool probe = true;                // false: a listed GPU counts as usable (--no-gpu-probe)
  std::string probe_command;        // overrides the built-in probe (tests)
  std::filesystem::path cache_dir;  // where the built probe is kept
  std::filesystem::path work_root;  // where it runs
};

class TaskGpu {
 public:
  TaskGpu(TaskGpuOptions options, MachineInfo machine);
  // Whether task jobs can run here; the first call probes, later ones answer from memory.
  bool usable();
  // Probes again (after a run whose output named a machine fault) and remembers the answer.
  bool recheck();
  // Why not usable, for logs and /api/v1/health; "" while usable.
  std::string why() const;

 private:
  bool probe(std::string* why) const;
  TaskGpuOptions opt_;
  MachineInfo machine_;
  mutable std::mutex mu_;
  std::optional<bool> usable_;
  std::string why_;
};

}  // namespace kjudge::board
