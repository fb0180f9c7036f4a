#pragma once
// Chart.js for the HTML report, inlined so the page opens from disk with no network: Debian's
// libjs-chart.js (the same file the service's web page serves).
#include <optional>
#include <string>

namespace kjudge::report {

// The library's text from $KJUDGE_CHART_JS, else libjs-chart.js's paths; nullopt when absent
// (the report then shows its tables without charts, and says why).
std::optional<std::string> load_chart_js();

}  // namespace kjudge::report
