#pragma once
// A run directory as an Inspect AI eval log in Inspect's JSON format (inspect_ai.log.EvalLog,
// log version 2), which `inspect view` lists and `inspect_ai.log.read_eval_log` reads: the run's
// problems pack is the task and its dataset, the solutions' source the model, every graded
// solution a sample (inspect_sample.h), pass@k and the speedup summary the results, and run.json
// with summary.json the eval's metadata. docs/reports.md, "Exports", maps every field.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "report/run_data.h"

namespace kjudge::exports {

struct InspectOptions {
  std::size_t log_bytes = 8192;  // head and tail of each build and test log kept; 0: none
};

nlohmann::ordered_json inspect_eval_log(const report::RunData& run, const InspectOptions& options);

// The name Inspect gives its own logs, TIMESTAMP_TASK_ID.json: `inspect view` lists only .json
// logs whose names start with such a timestamp.
std::string inspect_log_file_name(const nlohmann::ordered_json& log);

}  // namespace kjudge::exports
