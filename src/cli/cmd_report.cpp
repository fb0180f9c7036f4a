// kjudge report: a run directory as an HTML page and a Markdown summary, or two runs compared.
#include <fmt/format.h>

#include <fstream>

#include "cli/commands.h"
#include "core/exit_codes.h"
#include "core/input_error.h"
#include "report/comparison.h"
#include "report/render.h"
#include "report/run_data.h"

namespace kjudge {
namespace fs = std::filesystem;

namespace {

struct ReportArgs {
  std::vector<std::string> runs;
  bool compare = false;
  std::string html;
  std::string md;
  std::string problems;
  std::string solutions;
  std::size_t log_bytes = 8 * 1024;
};

void write_output(const std::string& path, const std::string& text) {
  const fs::path p(path);
  if (p.has_parent_path()) fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw InputError(path, 0, "", "cannot be written");
  fmt::print(stderr, "kjudge: wrote {} ({} bytes)\n", path, text.size());
}

int run_report(const ReportArgs& a) {
  const std::size_t want = a.compare ? 2 : 1;
  if (a.runs.size() != want)
    throw InputError("RUN_DIR", 0, "",
                     a.compare ? "--compare takes two run directories, A and B"
                               : "takes one run directory (or --compare A B)");
  report::LoadOptions lo{a.problems, a.solutions};
  std::string html, md;
  if (a.compare) {
    const report::RunData ra = report::load_run(a.runs[0], lo);
    const report::RunData rb = report::load_run(a.runs[1], lo);
    const report::Comparison c = report::compare_runs(ra, rb);
    if (!a.html.empty()) html = report::html_comparison(ra, rb, c);
    if (!a.md.empty() || a.html.empty()) md = report::markdown_comparison(ra, rb, c);
  } else {
    const report::RunData r = report::load_run(a.runs[0], lo);
    report::HtmlOptions ho;
    ho.log_bytes = a.log_bytes;
    if (!a.html.empty()) html = report::html_report(r, ho);
    if (!a.md.empty() || a.html.empty()) md = report::markdown_report(r);
  }
  if (!a.html.empty()) write_output(a.html, html);
  if (!a.md.empty()) write_output(a.md, md);
  // Neither file asked for: the Markdown summary goes to stdout, for a terminal or a pipe.
  if (a.html.empty() && a.md.empty()) fmt::print("{}", md);
  return exit_code::ok;
}

}  // namespace

void add_report_command(CLI::App& app, int& rc) {
  auto a = std::make_shared<ReportArgs>();
  auto* c = app.add_subcommand(
      "report",
      "A run directory as a self-contained HTML page and a Markdown summary (Markdown on stdout "
      "unless --html or --md is given); --compare A B: two runs side by side, with the exact "
      "McNemar test");
  c->add_option("RUN_DIR", a->runs, "Run directory (kjudge evaluate|validate|run --out DIR)")
      ->required();
  c->add_flag("--compare", a->compare, "Compare two run directories: RUN_A RUN_B");
  c->add_option("--html", a->html, "Write the HTML report here");
  c->add_option("--md", a->md, "Write the Markdown summary here");
  c->add_option("--problems", a->problems,
                "Where the run's problems are now, for the prompts (default: as run.json names "
                "them)");
  c->add_option("--solutions", a->solutions,
                "Where the run's solutions are now, for their files (default: as run.json names "
                "them)");
  c->add_option("--log-bytes", a->log_bytes,
                "Bytes of each build or test log shown in the HTML, head and tail (default 8192)")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 30));
  c->callback([a, &rc] { rc = run_report(*a); });
}

}  // namespace kjudge
