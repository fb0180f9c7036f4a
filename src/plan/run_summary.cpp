// The one writer of summary.json (plan/run_summary.h).
#include "plan/run_summary.h"

#include <fmt/format.h>

#include <chrono>

#include "core/atomic_file.h"
#include "core/exit_codes.h"
#include "eval/summary.h"
#include "plan/run_exit.h"
#include "report/terminal_table.h"

namespace kjudge::plan {

int write_run_summary(const RunPlan& plan, const RunOutcome& o) {
  const RunOptions& a = plan.options;
  SummaryOptions so;
  so.ks = a.ks;
  so.wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - plan.started).count();
  nlohmann::json summary = summarize(*o.results, so);
  summary["command"] = plan.command;
  summary["run_dir"] = plan.out.string();
  summary["complete"] = o.complete;
  summary["load_errors"] = plan.load_errors;
  nlohmann::json notes = plan.notes;
  for (const auto& n : o.notes) notes.push_back(n);
  summary["notes"] = notes;
  summary["sandbox"] = o.sandbox;
  summary["sandbox_limits"] = o.sandbox_limits;
  if (!o.main_guard.empty()) summary["main_guard"] = o.main_guard;
  if (a.build_only) {
    summary["build_only"] = true;
    summary["notes"].push_back(
        "--build-only: every solution was built and none was tested; 'pass' means it built, "
        "and pass@k says nothing of correctness");
  }
  summary["broken_gpus"] = o.broken_gpus;
  if (!o.executor.is_null()) summary["executor"] = o.executor;
  if (o.session) {
    summary["generation"] = o.session->finish(plan.problems, "generation-summary.json", so.wall_s);
    if (o.session->failed_requests() > 0)
      summary["notes"].push_back(fmt::format("{} requests to the model failed; --resume asks again",
                                             o.session->failed_requests()));
  }
  if (!o.performance.is_null()) summary["performance"] = o.performance;
  if (!o.warnings.empty()) summary["warnings"] = o.warnings;
  // ComputeEval's own file of graded solutions, for its tools (docs/computeeval.md).
  summary["graded_solutions"] =
      write_graded_solutions_file(plan, *o.results, o.solutions).filename().string();
  const std::filesystem::path path = plan.out / "summary.json";
  write_json_atomically(path, summary);

  if (a.json) fmt::print("{}\n", summary.dump(2));
  if (!a.quiet) {
    fmt::print(stderr, "{}", report::terminal_table(summary));
    fmt::print(stderr, "results: {}  summary: {}\n", (plan.out / "results.jsonl").string(),
               path.string());
    if (o.report_hint)
      fmt::print(stderr, "report: kjudge report {} --html {}\n", plan.out.string(),
                 (plan.out / "report.html").string());
  }
  if (o.interrupted) {
    fmt::print(stderr, "{}\n", o.interrupted_message);
    return exit_code::interrupted;
  }
  return finished_run_exit_code(plan.command, summary, plan.load_errors != 0);
}

}  // namespace kjudge::plan
