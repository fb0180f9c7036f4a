#pragma once
// What an array task of --executor slurm journals while Slurm may be cancelling it. Slurm
// signals every process of the job at once (scancel, preemption, the time limit), so a step
// can die of that SIGTERM, and be graded, before this process's own handler has run: the step
// would read as the solution's crash or failed benchmark. A result is kept only if the task is
// not stopping; one whose step died of SIGTERM first waits a moment for the handler. (A
// solution that really dies of SIGTERM pays that second, and is journaled as usual.)
#include <atomic>
#include <nlohmann/json.hpp>

#include "eval/graded.h"

namespace kjudge::slurm {

bool keep_shard_result(const GradedSolution& g, const std::atomic<bool>& stop);
// A perf.jsonl line of the benchmark stage.
bool keep_shard_timing(const nlohmann::json& line, const std::atomic<bool>& stop);

}  // namespace kjudge::slurm
