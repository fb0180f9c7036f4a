#pragma once
// The reports themselves: a self-contained HTML page (Chart.js inlined, opens from disk) and a
// Markdown summary, for one run or for two runs compared. docs/reports.md shows each section.
#include <cstddef>
#include <string>

#include "report/comparison.h"
#include "report/run_data.h"

namespace kjudge::report {

struct HtmlOptions {
  std::size_t log_bytes = 8 * 1024;    // of each build or test log, head and tail
  std::size_t file_bytes = 64 * 1024;  // of each solution file and prompt
};

std::string html_report(const RunData& run, const HtmlOptions& options = {});
std::string markdown_report(const RunData& run);

std::string html_comparison(const RunData& a, const RunData& b, const Comparison& c);
std::string markdown_comparison(const RunData& a, const RunData& b, const Comparison& c);

}  // namespace kjudge::report
