// The planner of kjudge validate|evaluate|run (plan/run_plan.h).
#include "plan/run_plan.h"

#include <fmt/format.h>

#include <ctime>
#include <fstream>
#include <map>
#include <set>

#include "core/datapack.h"
#include "core/input_error.h"
#include "core/run_identity.h"
#include "core/sha256.h"
#include "core/solution_packs.h"
#include "core/time_stamp.h"
#include "eval/sanitizer.h"
#include "plan/load.h"
#include "slurm/executor.h"

namespace kjudge::plan {
namespace fs = std::filesystem;

namespace {

// run.json's identity: the jobs (their hash), named by what they come from.
constexpr IdentityField kRunIdentity[] = {
    {"jobs_fingerprint",
     "the problems, solutions or filters (with --build-only, or the model for kjudge run)", true},
    {"checks", "--repeat or --sanitize"}};

// validate: every problem's baseline; a problem without one is skipped, never run.
void plan_baselines(RunPlan& p) {
  for (const auto& problem : p.problems) {
    if (problem.baseline_solution) {
      Solution s = *problem.baseline_solution;
      s.task_id = problem.task_id;
      s.sample = 0;
      p.jobs.push_back({&problem, std::move(s)});
    } else {
      GradedSolution g;
      g.task_id = problem.task_id;
      g.group = problem.group;
      g.difficulty = problem.difficulty;
      g.verdict = Verdict::skipped;
      g.skip_code = "no_baseline";
      g.detail = "the problem ships no baseline solution";
      p.pre_graded.push_back(g);
    }
  }
}

// evaluate: the solutions of the selected problems; those of problems absent from the pack are
// noted, those of problems filtered out are expected.
void plan_solutions(RunPlan& p) {
  const RunOptions& a = p.options;
  LoadReport sreport;
  std::vector<Solution> sols = read_solutions_any(a.solutions, &sreport);
  p.load_errors += print_load_errors(sreport);
  std::map<std::string, const Problem*> by_id;
  for (const auto& problem : p.problems) by_id[problem.task_id] = &problem;
  std::set<std::string> unknown, covered;
  for (auto& s : sols) {
    auto it = by_id.find(s.task_id);
    if (it == by_id.end()) {
      unknown.insert(s.task_id);
      continue;
    }
    covered.insert(s.task_id);
    p.jobs.push_back({it->second, std::move(s)});
  }
  LoadReport all_report;
  std::set<std::string> in_pack;
  if (!unknown.empty()) {
    for (const auto& problem : read_problems_any(a.problems, &all_report))
      in_pack.insert(problem.task_id);
    for (const auto& u : unknown)
      if (!in_pack.count(u)) {
        fmt::print(stderr, "kjudge: warning: solutions for '{}', which the problems pack lacks\n",
                   u);
        p.notes.push_back("solutions for unknown task " + u);
      }
  }
  // A run that would grade nothing is a mistake in its inputs (the wrong pack, a filter that
  // leaves out every solution), not an empty success.
  if (p.jobs.empty() && !sols.empty()) {
    std::string lacking;
    std::size_t shown = 0;
    for (const auto& u : unknown)
      if (!in_pack.count(u) && shown++ < 5) lacking += (lacking.empty() ? "" : ", ") + u;
    throw InputError(
        a.solutions, 0, "",
        fmt::format("none of its {} solutions is for a selected problem{}", sols.size(),
                    lacking.empty() ? std::string(" (the filters leave out every one)")
                                    : " (the problems pack lacks " + lacking +
                                          (shown > 5 ? ", ..." : "") + ")"));
  }
  int without = 0;
  for (const auto& problem : p.problems) without += !covered.count(problem.task_id);
  if (without) {
    fmt::print(stderr, "kjudge: note: {} selected problems have no solution and are not graded\n",
               without);
    p.notes.push_back(fmt::format("{} selected problems have no solution", without));
  }
}

// An array task of --executor slurm: only its shard's jobs, always resuming its own journal, so a
// resubmitted shard skips what an earlier attempt finished.
void keep_shard(RunPlan& p) {
  const RunOptions& a = p.options;
  std::set<SolutionKey> mine = slurm::shard_keys(a.slurm.shard_of, a.slurm.shard);
  std::vector<EvalJob> kept;
  for (auto& j : p.jobs)
    if (mine.count({j.problem->task_id, j.solution.sample})) kept.push_back(std::move(j));
  p.jobs = std::move(kept);
  std::vector<GradedSolution> kept_pre;
  for (auto& g : p.pre_graded)
    if (mine.count({g.task_id, g.sample})) kept_pre.push_back(std::move(g));
  p.pre_graded = std::move(kept_pre);
  const std::size_t found = p.jobs.size() + p.pre_graded.size();
  if (found != mine.size())
    throw InputError(a.slurm.shard_of, 0, "",
                     fmt::format("shard {} plans {} jobs but this command has {} of them: the "
                                 "packs changed since the run was planned",
                                 a.slurm.shard, mine.size(), found));
  p.options.resume = true;
}

// run.json's jobs_fingerprint. kjudge run's jobs are the model's answers, not known yet: its
// fingerprint is the model and the problems' hidden tests, in pack order (as always recorded).
std::string run_fingerprint(const RunPlan& p) {
  const RunOptions& a = p.options;
  if (p.command == "run") {
    Sha256 h;
    h.update("run\n").update(a.gen->provider).update("\n").update(a.gen->base_url);
    h.update("\n").update(a.gen->model).update("\n");
    for (const auto& problem : p.problems) {
      h.update(problem.task_id).update("\n");
      for (const auto& f : problem.test_files) h.update(f.path).update("\n").update(f.content);
    }
    return h.hex();
  }
  std::string fingerprint = jobs_fingerprint(p.jobs);
  // A build-only run's passes are builds: --resume must never mix them with tested ones.
  if (a.build_only) fingerprint = Sha256().update("build-only\n").update(fingerprint).hex();
  return fingerprint;
}

// A run directory holds one run: another one's journal is refused, and --resume checks that
// run.json records the same jobs.
void check_run_dir(const RunPlan& p) {
  if (fs::exists(p.out / "results.jsonl") && !p.options.resume)
    throw InputError(p.out.string(), 0, "",
                     "holds an earlier run; pass --resume to finish it, or "
                     "choose another --out");
  if (p.options.resume && fs::exists(p.out / "run.json")) {
    std::ifstream in(p.out / "run.json");
    const auto prev = nlohmann::ordered_json::parse(in, nullptr, false);
    nlohmann::ordered_json now = {{"jobs_fingerprint", p.fingerprint}};
    // A run without checks recorded none: its run.json (older ones too) has no "checks".
    if (const nlohmann::json checks = run_checks(p.options); !checks.is_null())
      now["checks"] = checks;
    if (!prev.is_discarded() && prev.is_object()) {
      nlohmann::ordered_json was = identity_part(prev, now);
      if (prev.contains("checks") && !prev["checks"].is_null()) was["checks"] = prev["checks"];
      check_run_identity(p.out / "run.json", p.out, was, now, kRunIdentity);
    }
  }
}

// --resume without -k: the summary is written anew from the journal, with the pass@k values the
// run was started with rather than the default.
void adopt_recorded_ks(RunPlan& p) {
  if (!p.options.resume || p.options.ks_given || !fs::exists(p.out / "run.json")) return;
  std::ifstream in(p.out / "run.json");
  const auto prev = nlohmann::json::parse(in, nullptr, false);
  if (prev.is_discarded() || !prev.is_object() || !prev.contains("ks")) return;
  std::vector<int> ks;
  for (const auto& k : prev["ks"])
    if (k.is_number_integer() && k.get<long long>() >= 1 && k.get<long long>() <= 1000000)
      ks.push_back(k.get<int>());
  if (!ks.empty() && ks.size() == prev["ks"].size()) p.options.ks = ks;
}

// --sanitize and --memcheck as one list of tools; a tool compute-sanitizer lacks is a usage error.
void check_luck_options(RunPlan& p) {
  RunOptions& a = p.options;
  std::vector<std::string> tools = a.sanitize;
  if (a.memcheck) tools.push_back("memcheck");
  try {
    a.sanitize = parse_sanitizer_tools(tools);
  } catch (const std::invalid_argument& e) {
    throw InputError("--sanitize", 0, "", e.what());
  }
  a.memcheck = false;
  if (a.build_only && (!a.sanitize.empty() || a.repeat > 1))
    throw InputError("--build-only", 0, "",
                     "tests nothing: --repeat and --sanitize need the tests");
  if (a.repeat < 1) throw InputError("--repeat", 0, "", "must be at least 1");
}

}  // namespace

nlohmann::json run_checks(const RunOptions& a) {
  if (a.sanitize.empty() && a.repeat <= 1) return nullptr;
  nlohmann::json c = {{"repeat", a.repeat}, {"sanitize", a.sanitize}};
  return c;
}

std::string jobs_fingerprint(const std::vector<EvalJob>& jobs) {
  ItemFingerprint items(":");
  for (const auto& j : jobs) {
    Sha256 h;
    h.update(j.problem->task_id).update("\n");
    for (const auto& f : j.solution.files)
      h.update(f.path).update("\n").update(f.content).update("\n");
    for (const auto& f : j.problem->test_files) h.update(f.path).update("\n").update(f.content);
    items.add(j.problem->task_id + "#" + std::to_string(j.solution.sample), h.hex());
  }
  return items.hex();
}

RunPlan plan_run(const std::string& command, const RunOptions& options) {
  RunPlan p;
  p.started = std::chrono::steady_clock::now();
  p.command = command;
  p.options = options;
  const RunOptions& a = p.options;
  // Load. Unreadable records are reported and left out; the rest is judged.
  LoadReport report;
  p.problems = filter_problems(read_problems_any(a.problems, &report), a.filter);
  p.load_errors = print_load_errors(report);
  if (p.problems.empty() && p.load_errors == 0)
    throw InputError(a.problems, 0, "", "no problems to judge (after filters)");

  if (command == "validate")
    plan_baselines(p);
  else if (command == "evaluate")
    plan_solutions(p);
  // kjudge run: the jobs are the model's answers: those of an earlier, interrupted run come
  // from its journal once the run directory is open, the rest as they arrive.

  check_luck_options(p);
  if (a.build_only) {
    if (command == "run") throw InputError("--build-only", 0, "", "is for evaluate and validate");
    if (a.benchmark) throw InputError("--build-only", 0, "", "and --benchmark exclude each other");
    if (a.slurm.executor == "slurm")
      throw InputError("--build-only", 0, "", "runs on the local executor only");
    for (auto& j : p.jobs) j.build_only = true;
  }
  if (command == "run" && a.slurm.executor == "slurm" && a.slurm.shards > 0)
    throw InputError("--shards", 0, "",
                     "is for evaluate and validate; kjudge run cuts a shard every --shard-size "
                     "answers (or --shard-wait seconds)");
  if (p.shard_task()) keep_shard(p);

  p.out = a.out.empty()
              ? fs::path("kjudge-runs") / (command + "-" + run_stamp(std::time(nullptr), false))
              : fs::path(a.out);
  p.fingerprint = run_fingerprint(p);
  p.datapack_name = command == "validate" ? "baseline"
                    : command == "run"    ? model_pack_name(a.gen->model)
                                          : solutions_pack_name(a.solutions);
  check_run_dir(p);
  adopt_recorded_ks(p);
  return p;
}

}  // namespace kjudge::plan
