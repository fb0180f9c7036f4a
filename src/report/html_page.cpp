#include "report/html_page.h"

#include "report/chart_js.h"
#include "report/html_text.h"

namespace kjudge::report {

namespace {

constexpr const char* kStyle = R"(
:root { --pass: #2e7d32; --fail: #c62828; --skip: #757575; --error: #ef6c00; --line: #ddd; }
body { font: 15px/1.45 system-ui, -apple-system, "DejaVu Sans", sans-serif; margin: 0 auto;
       max-width: 1180px; padding: 1.5em; color: #222; }
h1 { margin: 0 0 .2em; font-size: 1.6em; } h2 { border-bottom: 2px solid var(--line);
  padding-bottom: .2em; margin-top: 1.8em; } h4 { margin: 1em 0 .3em; }
.sub { color: #555; margin: 0; }
.cards { display: flex; flex-wrap: wrap; gap: 1em; margin: 1.2em 0; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: .7em 1.1em; min-width: 9em; }
.card .num { font-size: 1.9em; font-weight: 600; } .card .what { color: #555; font-size: .9em; }
table { border-collapse: collapse; margin: .6em 0; } td, th { padding: .25em .7em;
  border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
.chart { position: relative; height: 280px; max-width: 900px; margin: 1em 0; }
.v { display: inline-block; border-radius: 4px; padding: 0 .45em; color: #fff; font-size: .85em;
     margin-right: .2em; white-space: nowrap; }
.v.pass { background: var(--pass); } .v.fail { background: var(--fail); }
.v.skip { background: var(--skip); } .v.error { background: var(--error); }
details.problem { border: 1px solid var(--line); border-radius: 6px; margin: .4em 0; padding: .3em .8em; }
details.problem > summary { cursor: pointer; } details details { margin: .3em 0 .3em 1em; }
pre { background: #f6f8fa; padding: .6em; overflow-x: auto; white-space: pre-wrap;
      word-break: break-all; font-size: 12.5px; max-height: 32em; overflow-y: auto; }
.note { color: #555; } .warn { color: #8a4b00; } .flip-up { color: var(--pass); }
.flip-down { color: var(--fail); } .big { font-size: 1.15em; }
)";

}  // namespace

std::string html_page(const std::string& title, const std::string& body,
                      const std::string& script) {
  std::string out =
      "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>" +
      html_escape(title) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
  out += body;
  const auto chart = load_chart_js();
  if (!chart) {
    out +=
        "<p class=\"note\">Charts need Chart.js (Debian package libjs-chart.js, or "
        "$KJUDGE_CHART_JS), which was not found where this report was made; the tables hold "
        "the same numbers.</p>\n</body>\n</html>\n";
    return out;
  }
  out += "<script>\n" + *chart + "\n</script>\n<script>\n";
  // Drawn without animation, so a screenshot (and a reader printing the page) sees the charts.
  out += R"(
Chart.defaults.animation = false;
Chart.defaults.font.family = 'system-ui, -apple-system, "DejaVu Sans", sans-serif';
window.kjChartsDrawn = 0;
function kjBar(id, labels, datasets, opt) {
  opt = opt || {};
  const el = document.getElementById(id);
  if (!el) return;
  new Chart(el, {
    type: 'bar',
    data: { labels: labels, datasets: datasets },
    options: {
      maintainAspectRatio: false, indexAxis: opt.horizontal ? 'y' : 'x',
      plugins: { legend: { display: datasets.length > 1 } },
      scales: opt.percent ? { [opt.horizontal ? 'x' : 'y']: { min: 0, max: 100,
        ticks: { callback: v => v + '%' } } } : { [opt.horizontal ? 'x' : 'y']: { beginAtZero: true,
        ticks: { precision: 0 } } }
    }
  });
  window.kjChartsDrawn++;
}
)";
  out += script;
  out += "\n</script>\n</body>\n</html>\n";
  return out;
}

}  // namespace kjudge::report
