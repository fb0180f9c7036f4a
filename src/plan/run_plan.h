#pragma once
// A run of kjudge validate|evaluate|run, planned before anything is judged (issue 33): the
// problems, the jobs and the skips decided without running anything, the shard an array task
// keeps, the run directory and the run's fingerprint, checked against the one being resumed.
// plan_run makes it from plain options (plan/run_options.h); an executor carries it out
// (plan/execute.h), and one writer reports it (plan/run_summary.h).
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/problem.h"
#include "eval/evaluator.h"
#include "eval/graded.h"
#include "plan/run_options.h"

namespace kjudge::plan {

struct RunPlan {
  std::string command;            // validate, evaluate or run
  RunOptions options;             // as given, but an array task of --executor slurm always resumes
  std::vector<Problem> problems;  // after the filters; `jobs` point into it
  std::vector<EvalJob> jobs;      // kjudge run: none until its answers arrive
  std::vector<GradedSolution> pre_graded;  // decided without running anything (no baseline)
  int load_errors = 0;                     // input records that could not be read
  nlohmann::json notes = nlohmann::json::array();
  std::filesystem::path out;  // the run directory
  std::string fingerprint;    // run.json's jobs_fingerprint
  // ComputeEval's name of the solutions (NAME-graded-solutions.jsonl, plan/graded_file.h): the
  // pack's, the model's for kjudge run, "baseline" for validate.
  std::string datapack_name;
  std::chrono::steady_clock::time_point started;

  RunPlan() = default;
  // Moved, never copied: a copy's jobs would point into the original's problems.
  RunPlan(RunPlan&&) = default;
  RunPlan& operator=(RunPlan&&) = default;
  RunPlan(const RunPlan&) = delete;
  RunPlan& operator=(const RunPlan&) = delete;

  // An array task of --executor slurm: grades its shard of a planned run (slurm/executor.h).
  bool shard_task() const { return !options.slurm.shard_of.empty(); }
  // The submitting side of --executor slurm: the jobs go to Slurm job arrays.
  bool on_slurm() const { return options.slurm.executor == "slurm" && !shard_task(); }
};

// Loads the problems (and solutions), builds the jobs and skips, keeps an array task's shard,
// chooses the run directory, fingerprints the jobs and, with --resume, checks that the run
// directory holds this run (core/run_identity.h). Reports unreadable records on stderr and leaves
// them out. Throws InputError for options that exclude each other, an empty selection, a run
// directory that holds another run. Writes nothing.
RunPlan plan_run(const std::string& command, const RunOptions& options);

// What run.json records of the checks that change what a verdict means (--repeat, --sanitize):
// null when none is on (and in runs from before them); --resume refuses another value.
nlohmann::json run_checks(const RunOptions& options);

// The hash of a set of jobs: each job's key and its solution and hidden tests, independent of
// their order (core/run_identity.h, ItemFingerprint). The value run.json files have always had.
std::string jobs_fingerprint(const std::vector<EvalJob>& jobs);

}  // namespace kjudge::plan
