// The Slurm side of kjudge validate|evaluate|run (--executor slurm on the submitting machine):
// the jobs go to job arrays (slurm/executor.h, slurm/run.h) and the merged shards are
// summarised exactly as a local run's.
#include "cli/slurm_commands.h"

#include <fmt/format.h>
#include <signal.h>

#include <algorithm>
#include <map>

#include "cli/run_exit.h"
#include "cli/run_json.h"
#include "core/exit_codes.h"
#include "core/input_error.h"
#include "eval/build_cache.h"
#include "eval/cost_model.h"
#include "eval/summary.h"
#include "perf/bench_stage.h"
#include "report/terminal_table.h"
#include "slurm/array.h"
#include "slurm/run.h"

namespace kjudge {
namespace fs = std::filesystem;

namespace {

// --executor slurm with --benchmark: the summary's "performance" over the merged perf.jsonl.
// merge_shards has given every passing solution a line there, so run_bench_stage times nothing
// on the submitter and only summarises, exactly as a local run's last step does.
nlohmann::json merged_performance(const RunArgs& a, const std::vector<Problem>& problems,
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

// The merged shards summarised exactly as a local run's (the same summarize), plus "executor".
int finish_slurm_run(const std::string& command, const RunArgs& a, const fs::path& out,
                     const std::vector<Problem>& problems, const slurm::SlurmRunResult& r,
                     int load_errors, nlohmann::json notes,
                     std::chrono::steady_clock::time_point t0, GenerationSession* session,
                     int expected_total) {
  SummaryOptions so;
  so.ks = a.ks;
  so.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  nlohmann::json summary = summarize(r.results, so);
  summary["command"] = command;
  summary["run_dir"] = out.string();
  // kjudge run: complete only when every sample was answered and graded, as a local run.
  summary["complete"] =
      r.complete && (expected_total < 0 || static_cast<int>(r.results.size()) == expected_total);
  summary["load_errors"] = load_errors;
  for (const auto& n : r.notes) notes.push_back(n);
  summary["notes"] = notes;
  summary["sandbox"] = r.sandbox;
  summary["sandbox_limits"] = r.sandbox_limits;
  if (!r.main_guard.empty()) summary["main_guard"] = r.main_guard;
  summary["broken_gpus"] = r.broken_gpus;
  summary["executor"] = r.executor;
  if (session) {
    summary["generation"] = session->finish(problems, "generation-summary.json", so.wall_s);
    if (session->failed_requests() > 0)
      summary["notes"].push_back(fmt::format("{} requests to the model failed; --resume asks again",
                                             session->failed_requests()));
  }
  nlohmann::json warnings = r.warnings;
  if (a.benchmark && !r.interrupted) {
    summary["performance"] = merged_performance(a, problems, r, out);
    for (const auto& w : summary["performance"].value("warnings", nlohmann::json::array()))
      if (std::find(warnings.begin(), warnings.end(), w) == warnings.end()) warnings.push_back(w);
  }
  if (!warnings.empty()) summary["warnings"] = warnings;
  write_file_atomically(
      out / "summary.json",
      summary.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");

  if (a.json) fmt::print("{}\n", summary.dump(2));
  if (!a.quiet) {
    fmt::print(stderr, "{}", report::terminal_table(summary));
    fmt::print(stderr, "results: {}  summary: {}\n", (out / "results.jsonl").string(),
               (out / "summary.json").string());
  }
  if (r.interrupted) {
    fmt::print(stderr,
               "kjudge: interrupted (the array was cancelled); finish with: kjudge {} ... "
               "--executor slurm --out {} --resume\n",
               command, out.string());
    return exit_code::interrupted;
  }
  return finished_run_exit_code(command, summary, load_errors != 0);
}

// The fields slurm::SlurmRunInput (every job planned at once) and slurm::SlurmStreamInput (jobs cut
// as answers arrive) share, filled in one place so that validate|evaluate and run cannot drift
// apart.
template <class SlurmInput>
SlurmInput slurm_input(const std::string& command, const RunArgs& a, const fs::path& out,
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
std::vector<std::string> judge_argv(const RunArgs& a) {
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
  opt("--sandbox", a.steps.sandbox);
  if (!a.steps.bwrap.empty()) opt("--bwrap", a.steps.bwrap);
  opt("--memory-limit", a.steps.memory_limit);
  if (a.benchmark) {
    v.push_back("--benchmark");
    opt("--runs", std::to_string(a.runs));
    opt("--warmups", std::to_string(a.warmups));
    if (!a.profiler.empty()) opt("--profiler", a.profiler);
  }
  return v;
}

}  // namespace

// --executor slurm, the submitting side: the jobs go to a Slurm job array (slurm/executor.h).
int run_slurm_submitter(const std::string& command, const RunArgs& a, const fs::path& out,
                        const std::vector<Problem>& problems, const std::vector<EvalJob>& jobs,
                        const std::vector<GradedSolution>& pre_graded,
                        const std::string& fingerprint, int load_errors, nlohmann::json notes,
                        std::chrono::steady_clock::time_point t0, const RunInterrupts& ri) {
  if (fs::exists(out / "slurm" / "plan.json") && !a.resume)
    throw InputError(out.string(), 0, "",
                     "holds an earlier run; pass --resume to finish it, or choose another --out");
  if (a.slurm.gpus_per_task == 0 && !a.quiet)
    fmt::print(stderr,
               "kjudge: note: --gpus-per-task 0: the array tasks ask Slurm for no GPU (right "
               "for host-only problems only)\n");
  fs::path cache_dir = a.cache_dir.empty() ? default_cache_dir() : fs::path(a.cache_dir);
  CostModel costs(cache_dir / "timings.json");
  slurm::SlurmRunInput si = slurm_input<slurm::SlurmRunInput>(
      command, a, out, jobs.size() + pre_graded.size(), fingerprint, ri);
  si.command = command;
  for (const auto& j : jobs)
    si.jobs.push_back({{j.problem->task_id, j.solution.sample},
                       j.problem->group,
                       j.problem->difficulty,
                       costs.expected_total_s(*j.problem)});
  for (const auto& g : pre_graded)
    si.jobs.push_back({{g.task_id, g.sample}, g.group, g.difficulty, 0.0});
  ri.stop->store(false);
  signal(SIGINT, ri.handler);
  signal(SIGTERM, ri.handler);
  slurm::SlurmRunResult r = slurm::run_on_slurm(si);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  return finish_slurm_run(command, a, out, problems, r, load_errors, std::move(notes), t0, nullptr,
                          -1);
}

// kjudge run --executor slurm: the model is asked from here, the answers graded on the cluster
// in shards cut as they arrive (slurm/run.h).
int run_slurm_generation(const RunArgs& a, const fs::path& out,
                         const std::vector<Problem>& problems, const std::string& fingerprint,
                         int load_errors, nlohmann::json notes,
                         std::chrono::steady_clock::time_point t0, const RunInterrupts& ri) {
  if (a.gen->turns > 1)
    throw InputError("--turns", 0, "",
                     "is not supported by kjudge run yet; use kjudge generate --turns, then "
                     "kjudge evaluate");
  if (fs::exists(out / "slurm" / "plan.json") && !a.resume)
    throw InputError(out.string(), 0, "",
                     "holds an earlier run; pass --resume to finish it, or choose another --out");
  GenArgs ga = *a.gen;
  ga.problems = a.problems;
  ga.resume = a.resume;
  ga.quiet = true;  // the shards' progress line reports instead
  GenerationSession session(ga, out);
  session.open();

  fs::path cache_dir = a.cache_dir.empty() ? default_cache_dir() : fs::path(a.cache_dir);
  CostModel costs(cache_dir / "timings.json");
  const std::vector<std::string> judge = judge_argv(a);
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot read /proc/self/exe: " + ec.message());
  const int expected_total = static_cast<int>(problems.size()) * a.gen->samples;
  slurm::SlurmStreamInput si = slurm_input<slurm::SlurmStreamInput>(
      "run", a, out, static_cast<std::size_t>(expected_total), fingerprint, ri);
  si.answered = session.records();
  si.generate = [&](const std::function<void(const GenRecord&)>& also) {
    session.run(problems, also);
  };
  si.stop_generating = [&] { session.request_stop(); };
  si.problems = &problems;
  si.expected_s = [&](const Problem& p) { return costs.expected_total_s(p); };
  si.shard_command = [&](const fs::path& solutions, const fs::path& plan, int shard,
                         const fs::path& shard_out) {
    std::vector<std::string> v = {exe.string(), "evaluate",    "--problems",
                                  a.problems,   "--solutions", solutions.string()};
    v.insert(v.end(), judge.begin(), judge.end());
    for (const std::string& x :
         {std::string("--executor"), std::string("local"), std::string("--shard-of"), plan.string(),
          std::string("--shard"), std::to_string(shard), std::string("--out"), shard_out.string()})
      v.push_back(x);
    return v;
  };
  ri.stop->store(false);
  ri.session->store(&session);
  signal(SIGINT, ri.handler);
  signal(SIGTERM, ri.handler);
  slurm::SlurmRunResult r = slurm::run_streaming_on_slurm(si);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  ri.session->store(nullptr);
  return finish_slurm_run("run", a, out, problems, r, load_errors, std::move(notes), t0, &session,
                          expected_total);
}

}  // namespace kjudge
