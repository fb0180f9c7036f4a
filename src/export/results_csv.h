#pragma once
// A run directory's graded solutions as CSV, one row per results.jsonl line, for pandas, R and
// spreadsheets (docs/reports.md, "Exports"): a header row, then task_id, sample, group,
// difficulty, verdict, passed, skip_reason, build and test seconds, the speedup with its
// interval when the run has a perf.jsonl, and the judge's one-line detail.
#include <string>

#include "report/run_data.h"

namespace kjudge::exports {

std::string results_csv(const report::RunData& run);

}  // namespace kjudge::exports
