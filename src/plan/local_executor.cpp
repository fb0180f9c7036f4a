// The local executor of a planned run (plan/local_executor.h).
#include "plan/local_executor.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "core/atomic_file.h"
#include "core/error.h"
#include "eval/build_cache.h"
#include "eval/env_check.h"
#include "eval/evaluator.h"
#include "eval/journal.h"
#include "eval/sanitizer.h"
#include "perf/bench_stage.h"
#include "plan/baseline_check.h"
#include "plan/interrupts.h"
#include "plan/progress.h"
#include "plan/run_json.h"
#include "plan/run_summary.h"
#include "plan/step_options.h"
#include "run/main_return.h"
#include "run/process.h"
#include "run/sandbox.h"
#include "slurm/task.h"

namespace kjudge::plan {
namespace fs = std::filesystem;

namespace {

nlohmann::json machine_json(const MachineInfo& m) {
  nlohmann::json gpus = nlohmann::json::array();
  for (const auto& g : m.gpus)
    gpus.push_back({{"index", g.index}, {"name", g.name}, {"compute_capability", g.compute_cap}});
  return {{"nvcc", m.nvcc_path},
          {"cuda_version", m.cuda_version.value_or("")},
          {"driver", m.driver_version},
          {"cpus", m.cpu_count},
          {"gpus", gpus}};
}

// Two attempts of one shard must never append to its journal at once (a cancelled task can
// outlive the state Slurm reports for it by KillWait). flock works across nodes on NFS (as fcntl
// locks); the descriptor stays open until this process exits.
void lock_shard(const fs::path& out) {
  int lock = open((out / "shard.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock < 0 || flock(lock, LOCK_EX) != 0)
    throw std::runtime_error("cannot lock " + (out / "shard.lock").string());
}

// Throws Error (exit code environment) after printing the checks when one fails.
void check_machine(const RunPlan& plan, const MachineInfo& machine, const fs::path& cache_dir) {
  const RunOptions& a = plan.options;
  if (a.skip_env_check) return;
  std::vector<const Problem*> ps;
  for (const auto& p : plan.problems) ps.push_back(&p);
  EnvCheckOptions eo;
  eo.cache_dir = a.no_cache ? fs::path() : cache_dir;
  eo.need_gpus = !a.build_only;
  eo.sanitize = a.sanitize;
  eo.sanitizer = a.sanitizer;
  auto checks = check_environment(machine, ps, eo);
  if (any_failed(checks)) {
    fmt::print(stderr, "{}", format_checks(checks));
    throw Error(exit_code::environment,
                "the environment check failed; fix the above or pass --skip-env-check");
  }
}

}  // namespace

int execute_locally(RunPlan& plan) {
  const RunOptions& a = plan.options;
  const std::string& command = plan.command;
  const fs::path& out = plan.out;
  const RunInterrupts ri = run_interrupts();
  fs::create_directories(out);
  const bool shard_task = plan.shard_task();
  if (shard_task) lock_shard(out);

  // kjudge run: the generation side lives in the same directory (generation.jsonl, answers/).
  std::map<std::string, const Problem*> by_id;
  for (const auto& p : plan.problems) by_id[p.task_id] = &p;
  std::unique_ptr<GenerationSession> session;
  if (command == "run") {
    if (a.gen->turns > 1)
      throw InputError("--turns", 0, "",
                       "is not supported by kjudge run yet; use kjudge generate --turns, then "
                       "kjudge evaluate");
    GenArgs ga = *a.gen;
    ga.problems = a.problems;
    ga.resume = a.resume;
    ga.quiet = true;  // the grading progress bar reports instead
    session = std::make_unique<GenerationSession>(ga, out);
    session->open();
    for (const auto& r : session->records())
      if (by_id.count(r.task_id))
        plan.jobs.push_back({by_id[r.task_id], solution_of(r, *by_id[r.task_id])});
  }

  // The machine.
  MachineInfo machine = probe_machine();
  const fs::path cache_dir = a.cache_dir.empty() ? default_cache_dir() : fs::path(a.cache_dir);
  check_machine(plan, machine, cache_dir);
  const ResolvedSteps steps = resolve_step_options(a.steps, a.log_cap);
  const StepSettings& step = steps.settings;
  // --sanitize: the compute-sanitizer of this machine (the environment check has asked for it).
  const fs::path sanitizer =
      a.sanitize.empty() ? fs::path() : locate_compute_sanitizer(machine.nvcc_path, a.sanitizer);

  nlohmann::json run_json =
      run_json_header(command, a, plan.jobs.size() + plan.pre_graded.size(), plan.fingerprint);
  run_json["machine"] = machine_json(machine);
  run_json["options"].update({{"workers", a.workers},
                              {"tests_per_gpu", a.tests_per_gpu},
                              {"gpus", a.gpus},
                              {"cache", !a.no_cache},
                              {"quiet_retry", !a.no_quiet_retry},
                              {"timeout_evidence", !a.strict_timeouts},
                              {"judge_error_retries", a.retries},
                              {"sandbox", steps.mode},
                              {"memory_limit_bytes", step.memory_limit_bytes},
                              {"sandbox_limits", steps.limits_how},
                              {"build_only", a.build_only},
                              {"repeat", a.repeat}});
  if (!a.sanitize.empty()) run_json["options"]["sanitizer"] = sanitizer.string();
  write_json_atomically(out / "run.json", run_json);

  // The solutions' files outlive the jobs the correctness stage consumes: the benchmark stage
  // rebuilds them, and the ComputeEval graded file carries them.
  SolutionFiles solution_files;
  for (const auto& j : plan.jobs)
    solution_files[{j.problem->task_id, j.solution.sample}] = j.solution;

  // Resume: what the journal holds is done.
  const fs::path journal_path = out / "results.jsonl";
  std::vector<GradedSolution> results;
  Journal journal(journal_path, &results);
  std::set<SolutionKey> done;
  for (const auto& g : results) done.insert({g.task_id, g.sample});
  int already = static_cast<int>(done.size());
  std::vector<EvalJob> todo;
  for (auto& j : plan.jobs)
    if (!done.count({j.problem->task_id, j.solution.sample})) todo.push_back(std::move(j));
  std::vector<GradedSolution> pre_todo;
  for (const auto& g : plan.pre_graded)
    if (!done.count({g.task_id, g.sample})) pre_todo.push_back(g);

  int total = already + static_cast<int>(todo.size() + pre_todo.size());
  if (command == "run")
    total = static_cast<int>(plan.problems.size()) * a.gen->samples +
            static_cast<int>(plan.pre_graded.size());
  Progress progress(total, already, !a.quiet);
  if (a.resume && already)
    fmt::print(stderr, "kjudge: resuming {}: {} of {} already graded\n", out.string(), already,
               total);
  std::atomic<bool>& stop = *ri.stop;
  auto record = [&](const GradedSolution& g) {
    // An array task being cancelled or preempted: Slurm signals every process of the job, so
    // the steps in flight die of it too (a compiler "killed by SIGTERM" would read as the
    // model's build_error). What ends after our handler has run, or died of that SIGTERM
    // (slurm/task.h), is left to the resubmitted shard, which resumes this journal.
    if (shard_task && !slurm::keep_shard_result(g, stop)) return;
    journal.append(g);
    results.push_back(g);
    progress.update(g);
  };
  for (const auto& g : pre_todo) record(g);

  EvalOptions eo;
  eo.build_workers = a.workers;
  eo.tests_per_gpu = a.tests_per_gpu;
  eo.gpus = a.gpus;
  eo.use_cache = !a.no_cache;
  eo.cache_dir = cache_dir;
  if (!a.work_dir.empty()) eo.work_root = a.work_dir;
  // The array tasks on one node share --work-dir, and workspaces are named by task and sample:
  // the baseline a benchmark stage rebuilds has the same name in every shard of its problem.
  if (shard_task && !a.work_dir.empty())
    eo.work_root = fs::path(a.work_dir) / fmt::format("shard-{}-{}", a.slurm.shard, getpid());
  eo.keep_workspaces = a.keep_workspaces;
  eo.log_cap = a.log_cap;
  eo.judge_error_retries = a.retries;
  eo.quiet_retry = !a.no_quiet_retry;
  eo.timeout_evidence = !a.strict_timeouts;
  eo.sandbox = step.sandbox;
  eo.bwrap = step.bwrap;
  eo.memory_limit_bytes = step.memory_limit_bytes;
  // Found once: the benchmark stage uses the same guard (or the same absence of one).
  eo.main_guard = locate_main_guard();
  const char* guard_env = std::getenv("KJUDGE_MAIN_GUARD");
  const bool guard_off = guard_env && std::string(guard_env) == "none";
  if (eo.main_guard->empty() && !guard_off)
    fmt::print(
        stderr,
        "kjudge: libkjudge_main_guard.so not found beside kjudge, or KJUDGE_MAIN_GUARD names no "
        "file: "
        "a test program that exits 0 before its main() returns will count as a pass\n");
  eo.repeat = a.repeat;
  eo.sanitize = a.sanitize;
  eo.sanitize_timeout_factor = a.sanitize_timeout;
  eo.sanitizer = sanitizer;
  // validate judges the baselines themselves: a limit one of them cannot meet alone on this
  // machine is the machine's (the step runs again under ten times it, and the summary says so).
  if (command == "validate") eo.machine_limit_factor = 10;
  // Faults of the machine are not the model's: each problem's own baseline is judged first
  // (evaluate), or while the model answers (run), and no solution is graded before that ends.
  const bool check_first =
      (command == "evaluate" || command == "run") && !a.build_only && !a.no_baseline_check;
  BaselineOutcome baselines;
  std::vector<std::string> baseline_warnings;
  auto check_baselines_now = [&] {
    std::set<std::string> wanted;
    for (const auto& j : todo) wanted.insert(j.problem->task_id);
    std::vector<const Problem*> problems;
    for (const Problem& p : plan.problems)
      if (command == "run" || wanted.count(p.task_id)) problems.push_back(&p);
    baselines = apply_baseline_findings(check_baselines(problems, eo, machine, !a.quiet, &ri),
                                        plan.problems);
    baseline_warnings = baselines.warnings;
    eo.baseline_sanitizer_errors = baselines.sanitizer_errors;
    eo.baseline_test_s = baselines.test_s;
    run_json["baselines"] = baselines.report;
    write_json_atomically(out / "run.json", run_json);
  };
  // A solution goes to the evaluator unless its problem's baseline fails here.
  auto admit = [&](std::vector<EvalJob>& jobs) {
    std::vector<EvalJob> kept;
    for (auto& j : jobs) {
      if (baselines.fails.count(j.problem->task_id))
        record(baseline_skip(*j.problem, j.solution, baselines));
      else
        kept.push_back(std::move(j));
    }
    jobs = std::move(kept);
  };
  if (check_first && !session) {
    InterruptScope interrupts;
    check_baselines_now();
    admit(todo);
  }

  Evaluator evaluator(eo, machine);
  ri.evaluator->store(&evaluator);
  if (stop.load()) evaluator.request_stop();  // Ctrl-C during the baseline check
  {
    InterruptScope interrupts;
    if (session) {
      // Answers are graded as they arrive: the generator feeds the evaluator. Until the
      // baselines are judged (while the model answers), answers wait in `held`.
      JobFeed feed;
      std::mutex gate_mu;
      bool gate_open = !check_first;
      std::vector<EvalJob> held;
      std::vector<GradedSolution> skipped_answers;
      auto route = [&](EvalJob j) {  // under gate_mu
        if (baselines.fails.count(j.problem->task_id))
          skipped_answers.push_back(baseline_skip(*j.problem, j.solution, baselines));
        else
          feed.push(std::move(j));
      };
      if (check_first)
        held = std::move(todo);
      else
        for (auto& j : todo) feed.push(std::move(j));
      ri.session->store(session.get());
      std::thread producer([&] {
        session->run(plan.problems, [&](const GenRecord& r) {
          if (!by_id.count(r.task_id)) return;
          EvalJob j{by_id[r.task_id], solution_of(r, *by_id[r.task_id])};
          std::lock_guard<std::mutex> lock(gate_mu);
          if (gate_open)
            route(std::move(j));
          else
            held.push_back(std::move(j));
        });
        feed.close();
      });
      if (check_first) {
        check_baselines_now();
        std::lock_guard<std::mutex> lock(gate_mu);
        evaluator.set_baseline_sanitizer_errors(baselines.sanitizer_errors);
        evaluator.set_baseline_test_times(baselines.test_s);
        for (auto& j : held) route(std::move(j));
        held.clear();
        gate_open = true;
      }
      evaluator.run(feed, record);
      producer.join();
      // Recorded here: the evaluator's thread records while the producer runs.
      for (const GradedSolution& g : skipped_answers) record(g);
      ri.session->store(nullptr);
      for (const auto& r : session->records())
        if (by_id.count(r.task_id))
          solution_files[{r.task_id, r.sample}] = solution_of(r, *by_id[r.task_id]);
    } else {
      evaluator.run(std::move(todo), record);
    }
    ri.evaluator->store(nullptr);
  }
  progress.finish();

  nlohmann::json performance;
  if (a.benchmark && !evaluator.stopped()) {
    BenchStageInput bi;
    bi.problems = &plan.problems;
    bi.solutions = &solution_files;
    bi.results = &results;
    bi.eval = eo;
    bi.eval.keep_workspaces = a.keep_workspaces;
    bi.bench.runs = a.runs;
    bi.bench.warmups = a.warmups;
    bi.bench.gpus = a.gpus;
    bi.bench.profiler = a.profiler.empty() ? locate_profiler() : fs::path(a.profiler);
    bi.bench.main_guard = eo.main_guard;
    bi.bench.step = {step.sandbox, step.bwrap, step.memory_limit_bytes, a.log_cap};
    bi.machine = machine;
    bi.run_dir = out;
    bi.progress = !a.quiet;
    bi.stop = &stop;
    if (shard_task)
      bi.keep_line = [&stop](const nlohmann::json& j) { return slurm::keep_shard_timing(j, stop); };
    InterruptScope interrupts;
    performance = run_bench_stage(bi);
  }

  RunOutcome o;
  o.results = &results;
  o.solutions = &solution_files;
  const bool interrupted = evaluator.stopped() || stop.load();
  o.complete = static_cast<int>(results.size()) == total && !interrupted;
  o.sandbox = steps.mode;
  o.sandbox_limits = steps.limits_how;
  for (const auto& [gpu, why] : evaluator.broken_gpus()) {
    o.broken_gpus.push_back({{"gpu", gpu}, {"reason", why}});
    fmt::print(stderr, "kjudge: GPU {} was taken out of the pool: {}\n", gpu, why);
  }
  const Evaluator::PhaseTimes ph = evaluator.phase_times();
  o.phases = {{"main_s", ph.main_s},
              {"quiet_s", ph.quiet_s},
              {"quiet_retries", ph.quiet_retries},
              {"quiet_width", ph.quiet_width},
              {"quiet_alone", ph.quiet_alone},
              {"suspects", ph.suspects},
              {"test_wait_s_sum", ph.test_wait_s_sum}};
  o.session = session.get();
  if (!step.sandbox)
    o.warnings.push_back("--sandbox none: solutions ran unconfined, with the judge's rights");
  for (const std::string& w : baseline_warnings) o.warnings.push_back(w);
  // Where the main guard is off, an exit(0) of the solution's own passes a test (docs/cheats.md).
  o.main_guard = eo.main_guard->empty()
                     ? (guard_off ? "off (KJUDGE_MAIN_GUARD=none)" : "off (not found)")
                     : "on";
  if (eo.main_guard->empty())
    o.warnings.push_back(
        "the main guard was off: a test program that exited 0 before its main() "
        "returned counted as a pass");
  if (!performance.is_null()) {
    o.performance = performance;
    for (const auto& w : performance.value("warnings", nlohmann::json::array()))
      o.warnings.push_back(w);
  }
  o.report_hint = true;
  o.interrupted = interrupted;
  o.interrupted_message = fmt::format(
      "kjudge: interrupted; finish with: kjudge {} ... --out {} --resume", command, out.string());
  return write_run_summary(plan, o);
}

}  // namespace kjudge::plan
