#pragma once
// --executor slurm on the submitting machine, for kjudge validate|evaluate (run_slurm_submitter:
// every job planned at once) and kjudge run (run_slurm_generation: the model asked from here,
// shards cut as answers arrive). Both summarise the merged shards exactly as a local run and
// return its exit code.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/generation_session.h"
#include "cli/run_args.h"
#include "core/problem.h"
#include "eval/evaluator.h"
#include "eval/graded.h"

namespace kjudge {

// What Ctrl-C reaches (cmd_run.cpp's handler): the submitter waits on `stop` (then cancels the
// arrays and merges), and a generation session in `session` is told to stop asking.
struct RunInterrupts {
  std::atomic<bool>* stop = nullptr;
  std::atomic<GenerationSession*>* session = nullptr;
  void (*handler)(int) = nullptr;
};

int run_slurm_submitter(const std::string& command, const RunArgs& a,
                        const std::filesystem::path& out, const std::vector<Problem>& problems,
                        const std::vector<EvalJob>& jobs,
                        const std::vector<GradedSolution>& pre_graded,
                        const std::string& fingerprint, int load_errors, nlohmann::json notes,
                        std::chrono::steady_clock::time_point t0, const RunInterrupts& ri);

int run_slurm_generation(const RunArgs& a, const std::filesystem::path& out,
                         const std::vector<Problem>& problems, const std::string& fingerprint,
                         int load_errors, nlohmann::json notes,
                         std::chrono::steady_clock::time_point t0, const RunInterrupts& ri);

}  // namespace kjudge
