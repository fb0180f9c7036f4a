#pragma once
// The task's own harness (`kjudge task run|build --harness task`), run as GPU MODE's runner runs
// it, for exact parity with GPU MODE's verdicts and times: the task's files staged as they are
// (task/stage.h), then
//   lang py   `python <config.main> MODE CASES_FILE` (GPU MODE's eval.py);
//   lang cu   the task's config.sources (eval.cu and the submission) compiled by nvcc with GPU
//             MODE's flags into eval.out, then `./eval.out MODE CASES_FILE`;
// with POPCORN_FD naming a descriptor the harness writes `key: value` lines to
// (task/popcorn_record.h), and POPCORN_SEED the secret of a leaderboard run (the harness
// combines it with each case's seed itself). Inside kjudge's sandbox like every step.
//
// What the judge reads is what that process wrote, and the submission runs in that process (or
// a child of it that can reach its descriptors): nothing authenticates the lines, so a
// submission can write its own. The report says `harness: task`; kjudge's harness is the one to
// trust (docs/tasks.md).
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "core/task_spec.h"
#include "task/build.h"
#include "task/run.h"

namespace kjudge::task {

// The nvcc command that builds eval.out from the task's sources, as GPU MODE compiles CUDA tasks.
std::string own_cuda_build_command(const TaskSpec& task, const std::string& arch,
                                   const std::string& nvcc);

// Stages the workspace and, for lang cu, compiles eval.out. `options.harness` says which.
TaskBuild build_own_harness(const TaskSpec& task, const std::string& submission_text,
                            const std::filesystem::path& dir, const TaskBuildOptions& options);

// The argv of one mode's run: the interpreter and the task's script, or ./eval.out.
std::vector<std::string> own_harness_argv(const TaskSpec& task, HarnessKind kind,
                                          const std::string& python, const std::string& mode,
                                          const std::string& cases_file);

// The stage's cases as task-run.json gives them (`tests`, `benchmarks` with runs, mean_us,
// std_us, err_us, rel_err, best_us, worst_us from the harness's own statistics; `score_us`),
// and the profile mode's torch profiler table (`profile_report`), added to `stage`.
void add_popcorn_json(const ModeRun& run, const TaskSpec& task, nlohmann::json& stage);

ModeRun run_own_harness_mode(const TaskSpec& task, const TaskBuild& build, const std::string& mode,
                             const TaskRunOptions& options);

}  // namespace kjudge::task
