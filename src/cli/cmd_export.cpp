// kjudge export: a run directory as CSV (one row per graded solution) and as an Inspect AI eval
// log (docs/reports.md, "Exports").
#include <fmt/format.h>

#include "cli/commands.h"
#include "core/atomic_file.h"
#include "core/exit_codes.h"
#include "core/input_error.h"
#include "export/inspect_log.h"
#include "export/results_csv.h"
#include "report/run_data.h"

namespace kjudge {
namespace fs = std::filesystem;

namespace {

struct ExportArgs {
  std::string run;
  std::string csv;
  std::string inspect;
  std::string problems;
  std::string solutions;
  std::size_t log_bytes = 8 * 1024;
};

void make_parent(const fs::path& p) {
  if (p.has_parent_path()) fs::create_directories(p.parent_path());
}

// OUT, or a log named as Inspect names its own inside OUT when OUT is a directory (or ends
// with "/"), so that `inspect view --log-dir OUT` lists it.
fs::path inspect_path(const std::string& out, const nlohmann::ordered_json& log) {
  if (fs::is_directory(out) || out.ends_with('/'))
    return fs::path(out) / exports::inspect_log_file_name(log);
  return out;
}

int run_export(const ExportArgs& a) {
  if (a.csv.empty() && a.inspect.empty())
    throw InputError("OUT", 0, "", "nothing to write: give --csv OUT, --inspect OUT or both");
  const report::RunData r = report::load_run(a.run, {a.problems, a.solutions});
  for (const auto& note : r.notes) fmt::print(stderr, "kjudge: note: {}\n", note);
  if (!a.csv.empty()) {
    const std::string text = exports::results_csv(r);
    if (a.csv == "-") {
      fmt::print("{}", text);
    } else {
      make_parent(a.csv);
      write_file_atomically(a.csv, text);
      fmt::print(stderr, "kjudge: wrote {} ({} rows)\n", a.csv, r.results.size());
    }
  }
  if (!a.inspect.empty()) {
    exports::InspectOptions o;
    o.log_bytes = a.log_bytes;
    const nlohmann::ordered_json log = exports::inspect_eval_log(r, o);
    const fs::path out = inspect_path(a.inspect, log);
    make_parent(out);
    write_json_atomically(out, log);
    fmt::print(stderr, "kjudge: wrote {} ({} samples; open with: inspect view --log-dir {})\n",
               out.string(), log["samples"].size(), out.parent_path().string());
  }
  return exit_code::ok;
}

}  // namespace

void add_export_command(CLI::App& app, int& rc) {
  auto a = std::make_shared<ExportArgs>();
  auto* c = app.add_subcommand(
      "export",
      "A run directory as CSV (--csv: one row per graded solution, for pandas and spreadsheets) "
      "and as an Inspect AI eval log (--inspect: what `inspect view` and read_eval_log open)");
  c->add_option("RUN_DIR", a->run, "Run directory (kjudge evaluate|validate|run --out DIR)")
      ->required();
  c->add_option("--csv", a->csv, "Write the CSV here ('-': stdout)");
  c->add_option("--inspect", a->inspect,
                "Write the Inspect eval log (JSON) here; a directory gets a file named as "
                "Inspect names its logs (TIMESTAMP_TASK_ID.json)");
  c->add_option("--problems", a->problems,
                "Where the run's problems are now, for the prompts (default: as run.json names "
                "them)");
  c->add_option("--solutions", a->solutions,
                "Where the run's solutions are now, for the answers' files (default: as run.json "
                "names them)");
  c->add_option("--log-bytes", a->log_bytes,
                "Bytes of each build or test log kept in the Inspect log, head and tail (default "
                "8192; 0: none)")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 30));
  c->callback([a, &rc] { rc = run_export(*a); });
}

}  // namespace kjudge
