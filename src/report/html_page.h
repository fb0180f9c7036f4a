#pragma once
// The frame every HTML report shares: the stylesheet, Chart.js inlined, and a chart helper.
#include <string>

namespace kjudge::report {

// A whole document. `script` runs after Chart.js has loaded and may call
// kjBar(canvasId, labels, datasets, {percent, horizontal}); without Chart.js the page says so
// and `script` is left out.
std::string html_page(const std::string& title, const std::string& body, const std::string& script);

}  // namespace kjudge::report
