#pragma once
// The pages' stylesheet and script, served as /static/kjudge.css and /static/kjudge.js: kept
// out of the pages so the Content-Security-Policy can forbid inline script and style.
#include <string>

namespace kjudge::board {

const std::string& page_style();
// Draws each canvas[data-points] as a Chart.js line, and reloads a page holding an element
// with data-reload-ms after that many milliseconds.
const std::string& page_script();

}  // namespace kjudge::board
