#pragma once
// Builds a task with a submission: a fresh directory holding the task's files, the submission
// under its @SUBMISSION@ name and kjudge's harness (harness_files.h), compiled by nvcc in the
// sandbox into one program, `kjudge_task`. The submission is compiled on its own with
// -Xptxas=-v, so the resources ptxas reports are its kernels' alone.
#include <filesystem>
#include <string>
#include <vector>

#include "core/task_spec.h"
#include "eval/step_runner.h"
#include "perf/ptxas_usage.h"
#include "run/machine.h"
#include "task/harness_choice.h"

namespace kjudge::task {

struct TaskBuildOptions {
  StepSettings step;
  MachineInfo machine;
  std::string arch;  // "sm_90a"; empty: task_arch()
  double timeout_s = 300;
  // Where finished builds are kept and found again (build_cache.h): a submission resubmitted, or
  // run in another mode, is not compiled twice. Empty: no cache.
  std::filesystem::path cache_dir;
  // Also build the two programs of an isolated run (`--isolate`, harness/kjudge/split_call.cuh):
  // `kjudge_checker` (the harness and the task's reference, no submission) and `kjudge_worker`
  // (the submission and a thin loop, no channel and no reference output).
  bool isolate = false;
  // Which harness the build is for (task/harness_choice.h): kjudge's CUDA harness compiles as
  // above; the Python harnesses only stage the files (task/stage.h); the task's own eval.cu is
  // compiled with the submission as GPU MODE's runner compiles it (task/own_harness.h).
  HarnessKind harness = HarnessKind::kjudge_cuda;
};

struct TaskBuild {
  HarnessKind harness = HarnessKind::kjudge_cuda;
  bool ok = false;
  std::string failure;  // why not: "compile error", or the judge's fault
  bool judge_fault = false;
  std::filesystem::path workspace;
  std::filesystem::path binary;
  std::filesystem::path checker, worker;  // isolate: the two programs of an isolated run
  std::string arch;
  std::string command;
  std::string log;
  double seconds = 0;
  bool from_cache = false;
  // The harness's objects were built apart (once per task and flags, without a submission) and
  // kept in the cache: this build compiled only the submission and linked.
  bool harness_kept = false;
  std::vector<KernelResources> kernels;  // the submission's, from ptxas
};

// The architecture to build for: `requested` when given, else the first GPU's (sm_XYa for the
// architecture-specific features of 9.0 and 10.x, as GPU MODE builds for H100), else sm_90a.
std::string task_arch(const MachineInfo& machine, const std::string& requested);

// The shell command that builds kjudge_task in the task directory (and, with `isolate`,
// kjudge_checker and kjudge_worker).
std::string task_build_command(const TaskSpec& task, const std::string& arch,
                               const std::string& nvcc, bool isolate = false);

// The harness's objects alone (kjudge_harness.o; with `isolate` also kjudge_checker.o and
// kjudge_worker.o), built where the submission is not: what the cache keeps per task.
std::string task_harness_command(const TaskSpec& task, const std::string& arch,
                                 const std::string& nvcc, bool isolate = false);

// task_build_command with those objects already in the workspace: the submission compiled, the
// programs linked.
std::string task_build_command_on_harness(const TaskSpec& task, const std::string& arch,
                                          const std::string& nvcc, bool isolate = false);

// Writes the task's files, the submission and the harness into `dir` (created).
// Throws InputError when a task file would overwrite a harness file.
void write_task_workspace(const TaskSpec& task, const std::string& submission_text,
                          const std::filesystem::path& dir);

TaskBuild build_task(const TaskSpec& task, const std::string& submission_text,
                     const std::filesystem::path& dir, const TaskBuildOptions& options);

}  // namespace kjudge::task
