#pragma once
// out/run.json, what a run records about itself before it grades: written by a local run
// (cmd_run.cpp) and by the Slurm submitter (slurm_commands.cpp), and --resume checks the
// jobs_fingerprint of either before choosing between them.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/run_args.h"

namespace kjudge {

// The fields every run.json has, stamped now. Only the options that a Slurm submitter knows are
// in "options"; a local run adds "machine" and the judge options of the machine it runs on.
nlohmann::json run_json_header(const std::string& command, const RunArgs& a, std::size_t jobs,
                               const std::string& fingerprint);

}  // namespace kjudge
