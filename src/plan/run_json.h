#pragma once
// out/run.json, what a run records about itself before it grades: written by a local run
// (plan/local_executor.cpp) and by the Slurm submitter (plan/slurm_executor.cpp), and --resume
// checks the jobs_fingerprint of either before choosing between them.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "plan/run_options.h"

namespace kjudge::plan {

// The fields every run.json has, stamped now. Only the options that a Slurm submitter knows are
// in "options"; a local run adds "machine" and the judge options of the machine it runs on.
nlohmann::json run_json_header(const std::string& command, const RunOptions& a, std::size_t jobs,
                               const std::string& fingerprint);

}  // namespace kjudge::plan
