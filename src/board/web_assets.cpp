#include "board/web_assets.h"

namespace kjudge::board {

const std::string& page_style() {
  static const std::string css =
      "body{font:15px system-ui,sans-serif;margin:2em auto;max-width:60em;color:#222}\n"
      "table{border-collapse:collapse}\n"
      "td,th{padding:.3em .8em;border-bottom:1px solid #ddd;text-align:left}\n"
      "tr.me{background:#fff6d5}\n"
      "pre{background:#f5f5f5;padding:.8em;overflow:auto;max-height:30em}\n"
      "header{display:flex;justify-content:space-between}\n"
      "textarea{width:100%;height:14em;font-family:monospace}\n";
  return css;
}

const std::string& page_script() {
  static const std::string js = R"JS(document.addEventListener('DOMContentLoaded', () => {
  if (window.Chart) {
    for (const c of document.querySelectorAll('canvas[data-points]')) {
      new Chart(c, {
        type: 'line',
        data: {datasets: [{label: 'best score (µs)', data: JSON.parse(c.dataset.points),
                           stepped: true}]},
        options: {animation: false, parsing: {xAxisKey: 'x', yAxisKey: 'y'},
                  scales: {x: {type: 'category', labels: JSON.parse(c.dataset.labels)}}}
      });
    }
  }
  const r = document.querySelector('[data-reload-ms]');
  if (r) setTimeout(() => location.reload(), Number(r.dataset.reloadMs));
});
)JS";
  return js;
}

}  // namespace kjudge::board
