#pragma once
// One graded solution as an Inspect AI sample (inspect_ai.log.EvalSample): the problem's task_id
// as the sample id and its sample number + 1 as the epoch (Inspect's repeated attempts of one
// sample, which is what several samples per problem are), the prompt as the user message, the
// solution's files as the assistant's answer, the verdict as the "verdict" score (C, I, or N for
// a skipped or judge_error solution, which count for neither side), the speedup as the
// "speedup" score where it was timed, and everything else the judge recorded as metadata.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "report/run_data.h"

namespace kjudge::exports {

struct InspectSampleOptions {
  std::string model;             // the "model" the answers came from (inspect_log.h)
  std::size_t log_bytes = 8192;  // head and tail of each build and test log kept; 0: none
};

nlohmann::ordered_json inspect_sample(const report::RunData& run, const nlohmann::json& row,
                                      const InspectSampleOptions& options);

// Inspect's score value for a verdict: "C" passed, "I" failed, "N" not counted (skipped,
// judge_error: the judge's or the machine's doing, not the model's).
std::string inspect_score_value(const nlohmann::json& row);

}  // namespace kjudge::exports
