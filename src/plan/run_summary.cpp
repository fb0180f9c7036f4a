// The one writer of summary.json (plan/run_summary.h).
#include "plan/run_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>

#include "core/atomic_file.h"
#include "core/exit_codes.h"
#include "eval/summary.h"
#include "plan/run_exit.h"
#include "report/terminal_table.h"

namespace kjudge::plan {

namespace {

// validate: a baseline compute-sanitizer flags, or whose runs disagree under --repeat, is its
// problem's defect (or the machine's), never a model's: said in the notes, by task.
void note_defective_baselines(nlohmann::json& summary) {
  // "N baselines (A, B, …)": each task once, the first 20 named.
  auto named = [](const nlohmann::json& list) {
    std::vector<std::string> ids;
    for (const auto& x : list) {
      const std::string id = x.at("task_id").get<std::string>();
      if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
    }
    std::string s;
    for (std::size_t i = 0; i < ids.size() && i < 20; ++i) s += (i ? ", " : "") + ids[i];
    if (ids.size() > 20) s += fmt::format(" and {} more", ids.size() - 20);
    return fmt::format("{} baseline{} ({})", ids.size(), ids.size() == 1 ? "" : "s", s);
  };
  const nlohmann::json flagged = summary.value("sanitizer", nlohmann::json::object())
                                     .value("flagged", nlohmann::json::array());
  if (!flagged.empty())
    summary["notes"].push_back(fmt::format(
        "compute-sanitizer flagged {}: a problem whose own baseline has memory or race errors "
        "is the problem's defect",
        named(flagged)));
  const nlohmann::json flaky = summary.value("repeat", nlohmann::json::object())
                                   .value("flaky_solutions", nlohmann::json::array());
  if (!flaky.empty())
    summary["notes"].push_back(fmt::format(
        "{} gave different verdicts under --repeat: the problem's or the machine's defect",
        named(flaky)));
}

// validate: a baseline that needed more than its own limit alone on this machine (it ran again
// under ten times the limit: EvalOptions::machine_limit_factor) passes or fails on what it does;
// the limit is the machine's question, said here with what each step took.
void note_machine_limits(nlohmann::json& summary, const std::vector<GradedSolution>& results,
                         const std::vector<Problem>& problems) {
  std::map<std::string, double> limit;
  for (const Problem& p : problems) limit[p.task_id] = p.timeout_or_default();
  std::vector<std::string> over;
  for (const GradedSolution& g : results)
    for (const auto& [name, step] :
         {std::pair<const char*, const StepRecord*>{"build", &g.build}, {"test", &g.test}})
      if (step->extended_limit_s > 0)
        over.push_back(fmt::format("{} ({} {:.0f} s of its {:.0f} s)", g.task_id, name,
                                   step->wall_s, limit[g.task_id]));
  if (over.empty()) return;
  std::sort(over.begin(), over.end());
  std::string list;
  for (std::size_t i = 0; i < over.size() && i < 20; ++i) list += (i ? ", " : "") + over[i];
  if (over.size() > 20) list += fmt::format(" and {} more", over.size() - 20);
  summary["notes"].push_back(fmt::format(
      "{} baseline{} needed more than {} own time limit alone on this machine, and ran again "
      "under ten times it: {}. The limit is this machine's, not the problem's: evaluate and run "
      "scale it for the problem's solutions",
      over.size(), over.size() == 1 ? "" : "s", over.size() == 1 ? "its" : "their", list));
}

// Builds the loaded machine kept from its cores past their wall limit, judged on CPU time
// instead (EvalOptions::starved_build_factor): said, so a reader knows the machine was the
// bottleneck (fewer --jobs would have kept them inside it).
void note_cpu_limited_builds(nlohmann::json& summary, const std::vector<GradedSolution>& results) {
  std::size_t n = 0;
  double worst = 0;
  for (const GradedSolution& g : results)
    if (g.build.cpu_limited) {
      ++n;
      worst = std::max(worst, g.build.wall_s);
    }
  if (n == 0) return;
  summary["notes"].push_back(fmt::format(
      "{} build{} ran past {} wall-clock limit on this loaded machine with less CPU time than the "
      "limit, and went on under the limit counted in CPU time (the longest took {:.0f} s of wall "
      "time); fewer --jobs keep builds inside their wall-clock limits",
      n, n == 1 ? "" : "s", n == 1 ? "its" : "their", worst));
}

}  // namespace

int write_run_summary(const RunPlan& plan, const RunOutcome& o) {
  const RunOptions& a = plan.options;
  SummaryOptions so;
  so.ks = a.ks;
  so.wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - plan.started).count();
  so.sanitize = a.sanitize;
  so.repeat = a.repeat;
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
  if (!o.phases.is_null()) summary["timing"]["phases"] = o.phases;
  note_cpu_limited_builds(summary, *o.results);
  if (plan.command == "validate") {
    note_defective_baselines(summary);
    note_machine_limits(summary, *o.results, plan.problems);
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
