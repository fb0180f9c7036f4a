#pragma once
// One `kjudge task run|build` from start to report: the submission built with kjudge's harness,
// each stage of the mode run (benchmark and leaderboard run the tests first), the GPU held
// alone and watched while timed, and task-run.json written. The command (cli/cmd_task.cpp)
// fills the plain options and prints what the observer hears; the engine prints nothing.
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "eval/step_runner.h"
#include "task/build.h"

namespace kjudge::task {

struct TaskSessionOptions {
  std::filesystem::path folder;      // holds task.yml
  std::filesystem::path submission;  // the submission's source file
  bool build_only = false;           // kjudge task build: compile, no GPU
  std::string mode = "test";         // test, benchmark, leaderboard, profile
  std::filesystem::path out;         // empty: kjudge-runs/task-<name>-<time>
  std::string arch;                  // empty: this GPU's
  std::string ncu = "ncu";
  int gpu = 0;
  std::optional<std::uint64_t> secret_seed;  // leaderboard; none: a random one, not shown
  bool keep_workspace = false;
  bool use_cache = true;
  std::filesystem::path cache_dir;  // empty: default_cache_dir()
  bool isolate = true;
  bool isolate_chosen = false;  // the user asked for isolation explicitly (or against it)
  std::string timing = "kjudge", placement = "arena";
  double max_time = 0, target_error = 0, gpu_wait = 600;  // 0: the stopping rule's default
  int max_runs = 0, min_runs = 0, profile_case = -1;
  StepSettings step;
  std::string sandbox_mode, sandbox_limits;  // as the report names them
  // "kjudge" (default: kjudge's CUDA harness for lang cu, its Python harness for lang py) or
  // "task" (the task's own eval.py / eval.cu, GPU MODE's protocol; task/harness_choice.h).
  std::string harness = "kjudge";
  std::string python;  // the interpreter of Python tasks; empty: default_task_python()
};

// What a session says as it goes. The default says nothing.
class TaskObserver {
 public:
  virtual ~TaskObserver() = default;
  virtual void note(const std::string& /*line*/) {}     // progress: "building …", "test …"
  virtual void problem(const std::string& /*line*/) {}  // why the session stops early
  virtual void built(const TaskBuild& /*build*/) {}
  virtual void stage(const nlohmann::json& /*stage*/) {}    // one mode's record
  virtual void flagged(const nlohmann::json& /*flags*/) {}  // every stage's flags, lifted
};

struct TaskSessionResult {
  nlohmann::json report;  // as written to report_path
  std::filesystem::path report_path;
  std::vector<std::string> warnings;
  int exit_code = 0;  // core/exit_codes.h: ok, findings, environment, judge_error
};

// Throws Error (core/error.h) where nothing can start (no nvcc; no GPU, or no such GPU, for a
// run) and InputError for a bad task folder or submission.
TaskSessionResult run_task_session(const TaskSessionOptions& options, TaskObserver& observer);

}  // namespace kjudge::task
