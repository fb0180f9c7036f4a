// The Slurm executor of a planned run (plan/slurm_executor.h): the jobs go to job arrays
// (slurm/executor.h, slurm/run.h) and the merged shards are reported as a local run's.
#include "plan/slurm_executor.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "core/input_error.h"
#include "eval/build_cache.h"
#include "eval/cost_model.h"
#include "perf/bench_stage.h"
#include "plan/interrupts.h"
#include "plan/run_json.h"
#include "plan/run_summary.h"
#include "slurm/array.h"
#include "slurm/run.h"

namespace kjudge::plan {
namespace fs = std::filesystem;

namespace {

// --executor slurm with --benchmark: the summary's "performance" over the merged perf.jsonl.
// merge_shards has given every passing solution a line there, so run_bench_stage times nothing
// on the submitter and only summarises, exactly as a local run's last step does.
nlohmann::json merged_performance(const RunOptions& a, const std::vector<Problem>& problems,
                                  const slurm::SlurmRunResult& r, const fs::path& out) {
  const std::map<std::pair<std::string, int>, Solution> none;
  BenchStageInput bi;
  bi.problems = &problems;
  bi.solutions = &none;
  bi.results = &r.results;
  bi.bench.runs = a.runs;
  bi.bench.warmups = a.warmups;
  bi.run_dir = out;
  bi.progress = false;
  nlohmann::json perf = run_bench_stage(bi);
  for (const auto& [k, v] : r.perf_env.items()) perf[k] = v;  // the nodes', not the submitter's
  return perf;
}

// The merged shards reported by the one writer, plus "executor"; `expected_total` (kjudge run):
// complete only when every sample was answered and graded, as a local run.
int finish_slurm_run(const RunPlan& plan, const slurm::SlurmRunResult& r,
                     GenerationSession* session, int expected_total) {
  const RunOptions& a = plan.options;
  RunOutcome o;
  o.results = &r.results;
  // The ComputeEval graded file's solutions: the planned jobs', or kjudge run's answers.
  SolutionFiles solutions;
  for (const auto& j : plan.jobs) solutions[{j.problem->task_id, j.solution.sample}] = j.solution;
  if (session) {
    std::map<std::string, const Problem*> by_id;
    for (const auto& p : plan.problems) by_id[p.task_id] = &p;
    for (const auto& rec : session->records())
      if (by_id.count(rec.task_id))
        solutions[{rec.task_id, rec.sample}] = solution_of(rec, *by_id[rec.task_id]);
  }
  o.solutions = &solutions;
  o.complete =
      r.complete && (expected_total < 0 || static_cast<int>(r.results.size()) == expected_total);
  o.notes = r.notes;
  o.sandbox = r.sandbox;
  o.sandbox_limits = r.sandbox_limits;
  o.main_guard = r.main_guard;
  o.broken_gpus = r.broken_gpus;
  o.executor = r.executor;
  o.session = session;
  o.warnings = r.warnings;
  if (a.benchmark && !r.interrupted) {
    o.performance = merged_performance(a, plan.problems, r, plan.out);
    for (const auto& w : o.performance.value("warnings", nlohmann::json::array()))
      if (std::find(o.warnings.begin(), o.warnings.end(), w) == o.warnings.end())
        o.warnings.push_back(w);
  }
  o.interrupted = r.interrupted;
  o.interrupted_message = fmt::format(
      "kjudge: interrupted (the array was cancelled); finish with: kjudge {} ... "
      "--executor slurm --out {} --resume",
      plan.command, plan.out.string());
  return write_run_summary(plan, o);
}

// The fields slurm::SlurmRunInput (every job planned at once) and slurm::SlurmStreamInput (jobs cut
// as answers arrive) share, filled in one place so that validate|evaluate and run cannot drift
// apart.
template <class SlurmInput>
SlurmInput slurm_input(const std::string& command, const RunOptions& a, const fs::path& out,
                       std::size_t jobs, const std::string& fingerprint, const RunInterrupts& ri) {
  SlurmInput in;
  in.out = out;
  in.slurm = a.slurm;
  in.resume = a.resume;
  in.quiet = a.quiet;
  in.benchmark = a.benchmark;
  in.stop = ri.stop;
  in.run_json = run_json_header(command, a, jobs, fingerprint);
  return in;
}

// The judge options of kjudge run, as the `kjudge evaluate` of a shard takes them: rendered
// from the parsed values (a --config file's included), not copied from the command line,
// whose model options evaluate does not have.
std::vector<std::string> judge_argv(const RunOptions& a) {
  std::vector<std::string> v;
  auto opt = [&](const std::string& name, const std::string& value) {
    v.push_back(name);
    v.push_back(value);
  };
  auto list = [](const auto& xs) {
    std::string s;
    for (const auto& x : xs) s += (s.empty() ? "" : ",") + fmt::format("{}", x);
    return s;
  };
  opt("-k", list(a.ks));
  for (const auto& g : a.filter.groups) opt("--group", g);
  for (const auto& g : a.filter.exclude_groups) opt("--exclude-group", g);
  for (const auto& d : a.filter.difficulties) opt("--difficulty", d);
  for (const auto& t : a.filter.task_ids) opt("--task", t);
  if (a.filter.limit > 0) opt("--limit", std::to_string(a.filter.limit));
  if (a.workers > 0) opt("--workers", std::to_string(a.workers));
  opt("--tests-per-gpu", std::to_string(a.tests_per_gpu));
  if (!a.gpus.empty()) opt("--gpus", list(a.gpus));
  if (a.no_cache) v.push_back("--no-cache");
  if (!a.cache_dir.empty()) opt("--cache-dir", a.cache_dir);
  if (!a.work_dir.empty()) opt("--work-dir", a.work_dir);
  if (a.keep_workspaces) v.push_back("--keep-workspaces");
  if (a.skip_env_check) v.push_back("--skip-env-check");
  opt("--log-cap", std::to_string(a.log_cap));
  opt("--retries", std::to_string(a.retries));
  if (a.no_quiet_retry) v.push_back("--no-quiet-retry");
  if (a.strict_timeouts) v.push_back("--strict-timeouts");
  opt("--sandbox", a.steps.sandbox);
  if (!a.steps.bwrap.empty()) opt("--bwrap", a.steps.bwrap);
  opt("--memory-limit", a.steps.memory_limit);
  // Issue 34's checks (plan_run has folded --memcheck into --sanitize).
  if (a.repeat > 1) opt("--repeat", std::to_string(a.repeat));
  if (!a.sanitize.empty()) {
    opt("--sanitize", list(a.sanitize));
    opt("--sanitize-timeout", fmt::format("{}", a.sanitize_timeout));
    if (!a.sanitizer.empty()) opt("--sanitizer", a.sanitizer);
  }
  if (a.benchmark) {
    v.push_back("--benchmark");
    opt("--runs", std::to_string(a.runs));
    opt("--warmups", std::to_string(a.warmups));
    if (!a.profiler.empty()) opt("--profiler", a.profiler);
  }
  return v;
}

// A run directory holds one Slurm run: another one's plan is refused.
void check_slurm_dir(const RunPlan& plan) {
  if (fs::exists(plan.out / "slurm" / "plan.json") && !plan.options.resume)
    throw InputError(plan.out.string(), 0, "",
                     "holds an earlier run; pass --resume to finish it, or choose another --out");
}

// validate|evaluate: every job planned at once goes to a Slurm job array (slurm/executor.h).
int submit_jobs(const RunPlan& plan, const RunInterrupts& ri) {
  const RunOptions& a = plan.options;
  check_slurm_dir(plan);
  if (a.slurm.gpus_per_task == 0 && !a.quiet)
    fmt::print(stderr,
               "kjudge: note: --gpus-per-task 0: the array tasks ask Slurm for no GPU (right "
               "for host-only problems only)\n");
  fs::path cache_dir = a.cache_dir.empty() ? default_cache_dir() : fs::path(a.cache_dir);
  CostModel costs(cache_dir / "timings.json");
  slurm::SlurmRunInput si = slurm_input<slurm::SlurmRunInput>(
      plan.command, a, plan.out, plan.jobs.size() + plan.pre_graded.size(), plan.fingerprint, ri);
  si.command = plan.command;
  for (const auto& j : plan.jobs)
    si.jobs.push_back({{j.problem->task_id, j.solution.sample},
                       j.problem->group,
                       j.problem->difficulty,
                       costs.expected_total_s(*j.problem)});
  for (const auto& g : plan.pre_graded)
    si.jobs.push_back({{g.task_id, g.sample}, g.group, g.difficulty, 0.0});
  ri.stop->store(false);
  slurm::SlurmRunResult r;
  {
    InterruptScope interrupts;
    r = slurm::run_on_slurm(si);
  }
  return finish_slurm_run(plan, r, nullptr, -1);
}

// kjudge run: the model is asked from here, the answers graded on the cluster in shards cut as
// they arrive (slurm/run.h).
int generate_and_submit(const RunPlan& plan, const RunInterrupts& ri) {
  const RunOptions& a = plan.options;
  if (a.gen->turns > 1)
    throw InputError("--turns", 0, "",
                     "is not supported by kjudge run yet; use kjudge generate --turns, then "
                     "kjudge evaluate");
  check_slurm_dir(plan);
  GenArgs ga = *a.gen;
  ga.problems = a.problems;
  ga.resume = a.resume;
  ga.quiet = true;  // the shards' progress line reports instead
  GenerationSession session(ga, plan.out);
  session.open();

  fs::path cache_dir = a.cache_dir.empty() ? default_cache_dir() : fs::path(a.cache_dir);
  CostModel costs(cache_dir / "timings.json");
  const std::vector<std::string> judge = judge_argv(a);
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot read /proc/self/exe: " + ec.message());
  const std::vector<Problem>& problems = plan.problems;
  const int expected_total = static_cast<int>(problems.size()) * a.gen->samples;
  slurm::SlurmStreamInput si = slurm_input<slurm::SlurmStreamInput>(
      "run", a, plan.out, static_cast<std::size_t>(expected_total), plan.fingerprint, ri);
  si.answered = session.records();
  si.generate = [&](const std::function<void(const GenRecord&)>& also) {
    session.run(problems, also);
  };
  si.stop_generating = [&] { session.request_stop(); };
  si.problems = &problems;
  si.expected_s = [&](const Problem& p) { return costs.expected_total_s(p); };
  si.shard_command = [&](const fs::path& solutions, const fs::path& shard_plan, int shard,
                         const fs::path& shard_out) {
    std::vector<std::string> v = {exe.string(), "evaluate",    "--problems",
                                  a.problems,   "--solutions", solutions.string()};
    v.insert(v.end(), judge.begin(), judge.end());
    for (const std::string& x :
         {std::string("--executor"), std::string("local"), std::string("--shard-of"),
          shard_plan.string(), std::string("--shard"), std::to_string(shard), std::string("--out"),
          shard_out.string()})
      v.push_back(x);
    return v;
  };
  ri.stop->store(false);
  ri.session->store(&session);
  slurm::SlurmRunResult r;
  {
    InterruptScope interrupts;
    r = slurm::run_streaming_on_slurm(si);
  }
  ri.session->store(nullptr);
  return finish_slurm_run(plan, r, &session, expected_total);
}

}  // namespace

int execute_on_slurm(RunPlan& plan) {
  fs::create_directories(plan.out);
  const RunInterrupts ri = run_interrupts();
  if (plan.command == "run") return generate_and_submit(plan, ri);
  return submit_jobs(plan, ri);
}

}  // namespace kjudge::plan
