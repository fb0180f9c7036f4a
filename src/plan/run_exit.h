#pragma once
// The exit code of a finished evaluate/validate/run, local or spread over Slurm: both end the
// same way, so both say the same thing to a script.
#include <nlohmann/json.hpp>
#include <string>

namespace kjudge::plan {

// `summary`: the run's summary.json; `load_errors`: input lines that could not be read.
int finished_run_exit_code(const std::string& command, const nlohmann::json& summary,
                           bool load_errors);

}  // namespace kjudge::plan
