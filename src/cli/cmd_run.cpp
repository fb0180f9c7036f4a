// kjudge validate and kjudge evaluate: load → plan → grade → journal → summarise.
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <ctime>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "cli/commands.h"
#include "cli/evaluate_triton.h"
#include "cli/generation_session.h"
#include "cli/load.h"
#include "cli/option_ranges.h"
#include "cli/progress.h"
#include "cli/run_args.h"
#include "cli/run_exit.h"
#include "cli/run_json.h"
#include "cli/slurm_commands.h"
#include "cli/slurm_options.h"
#include "cli/step_options.h"
#include "core/atomic_file.h"
#include "core/byte_size.h"
#include "core/error.h"
#include "core/problem_json.h"
#include "core/run_identity.h"
#include "core/sha256.h"
#include "core/time_stamp.h"
#include "eval/build_cache.h"
#include "eval/cost_model.h"
#include "eval/env_check.h"
#include "eval/evaluator.h"
#include "eval/graded_json.h"
#include "eval/journal.h"
#include "eval/summary.h"
#include "perf/bench_stage.h"
#include "report/terminal_table.h"
#include "run/cgroup.h"
#include "run/main_return.h"
#include "run/process.h"
#include "run/sandbox.h"
#include "slurm/executor.h"
#include "slurm/task.h"

namespace kjudge {
namespace fs = std::filesystem;

namespace {

std::atomic<Evaluator*> g_running{nullptr};
std::atomic<bool> g_stop{false};
std::atomic<GenerationSession*> g_session{nullptr};

extern "C" void on_interrupt(int) {
  g_stop.store(true);
  if (GenerationSession* s = g_session.load()) s->request_stop();
  if (Evaluator* e = g_running.load()) e->request_stop();
  // A second Ctrl-C ends the judge at once; the journal keeps what was finished.
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
}

RunInterrupts interrupts() { return {&g_stop, &g_session, on_interrupt}; }

// Identifies what a run grades, so --resume refuses to mix two different runs in one journal.
// Each job's key and a hash of its solution and hidden tests ("key:hash" lines, as run.json files
// of earlier versions recorded them).
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

// run.json's identity: the jobs (their hash), named by what they come from.
constexpr IdentityField kRunIdentity[] = {
    {"jobs_fingerprint",
     "the problems, solutions or filters (with --build-only, or the model for kjudge run)", true}};

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

int run_jobs(const std::string& command, const RunArgs& a0) {
  RunArgs a = a0;  // an array task of --executor slurm adjusts a few of them
  auto t0 = std::chrono::steady_clock::now();
  // Load. Unreadable records are reported and left out; the rest is judged.
  LoadReport report;
  std::vector<Problem> problems = filter_problems(read_problems_any(a.problems, &report), a.filter);
  int load_errors = print_load_errors(report);
  if (problems.empty() && load_errors == 0)
    throw InputError(a.problems, 0, "", "no problems to judge (after filters)");

  std::vector<EvalJob> jobs;
  std::vector<GradedSolution> pre_graded;  // decided without running anything
  nlohmann::json notes = nlohmann::json::array();
  if (command == "validate") {
    for (const auto& p : problems) {
      if (p.baseline_solution) {
        Solution s = *p.baseline_solution;
        s.task_id = p.task_id;
        s.sample = 0;
        jobs.push_back({&p, std::move(s)});
      } else {
        GradedSolution g;
        g.task_id = p.task_id;
        g.group = p.group;
        g.difficulty = p.difficulty;
        g.verdict = Verdict::skipped;
        g.skip_code = "no_baseline";
        g.detail = "the problem ships no baseline solution";
        pre_graded.push_back(g);
      }
    }
  } else if (command == "run") {
    // The jobs are the model's answers: those of an earlier, interrupted run come from its
    // journal once the run directory is open, the rest as they arrive.
  } else {
    LoadReport sreport;
    std::vector<Solution> sols = read_solutions_any(a.solutions, &sreport);
    load_errors += print_load_errors(sreport);
    std::map<std::string, const Problem*> by_id;
    for (const auto& p : problems) by_id[p.task_id] = &p;
    std::set<std::string> unknown, covered;
    for (auto& s : sols) {
      auto it = by_id.find(s.task_id);
      if (it == by_id.end()) {
        unknown.insert(s.task_id);
        continue;
      }
      covered.insert(s.task_id);
      jobs.push_back({it->second, std::move(s)});
    }
    // Solutions for problems filtered out are expected; for problems absent from the pack not.
    LoadReport all_report;
    std::set<std::string> in_pack;
    if (!unknown.empty()) {
      for (const auto& p : read_problems_any(a.problems, &all_report)) in_pack.insert(p.task_id);
      for (const auto& u : unknown)
        if (!in_pack.count(u)) {
          fmt::print(stderr, "kjudge: warning: solutions for '{}', which the problems pack lacks\n",
                     u);
          notes.push_back("solutions for unknown task " + u);
        }
    }
    int without = 0;
    for (const auto& p : problems) without += !covered.count(p.task_id);
    if (without) {
      fmt::print(stderr, "kjudge: note: {} selected problems have no solution and are not graded\n",
                 without);
      notes.push_back(fmt::format("{} selected problems have no solution", without));
    }
  }

  if (a.build_only) {
    if (command == "run") throw InputError("--build-only", 0, "", "is for evaluate and validate");
    if (a.benchmark) throw InputError("--build-only", 0, "", "and --benchmark exclude each other");
    if (a.slurm.executor == "slurm")
      throw InputError("--build-only", 0, "", "runs on the local executor only");
    for (auto& j : jobs) j.build_only = true;
  }
  if (command == "run" && a.slurm.executor == "slurm" && a.slurm.shards > 0)
    throw InputError("--shards", 0, "",
                     "is for evaluate and validate; kjudge run cuts a shard every --shard-size "
                     "answers (or --shard-wait seconds)");
  if (!a.slurm.shard_of.empty()) {
    // An array task of --executor slurm: only its shard's jobs, always resuming its own
    // journal, so a resubmitted shard skips what an earlier attempt finished.
    std::set<SolutionKey> mine = slurm::shard_keys(a.slurm.shard_of, a.slurm.shard);
    std::vector<EvalJob> kept;
    for (auto& j : jobs)
      if (mine.count({j.problem->task_id, j.solution.sample})) kept.push_back(std::move(j));
    jobs = std::move(kept);
    std::vector<GradedSolution> kept_pre;
    for (auto& g : pre_graded)
      if (mine.count({g.task_id, g.sample})) kept_pre.push_back(std::move(g));
    pre_graded = std::move(kept_pre);
    const std::size_t found = jobs.size() + pre_graded.size();
    if (found != mine.size())
      throw InputError(a.slurm.shard_of, 0, "",
                       fmt::format("shard {} plans {} jobs but this command has {} of them: the "
                                   "packs changed since the run was planned",
                                   a.slurm.shard, mine.size(), found));
    a.resume = true;
  }

  // The run directory.
  fs::path out = a.out.empty() ? fs::path("kjudge-runs") /
                                     (command + "-" + run_stamp(std::time(nullptr), false))
                               : fs::path(a.out);
  fs::path journal_path = out / "results.jsonl";
  std::string fingerprint = jobs_fingerprint(jobs);
  // A build-only run's passes are builds: --resume must never mix them with tested ones.
  if (a.build_only) fingerprint = Sha256().update("build-only\n").update(fingerprint).hex();
  if (command == "run") {
    Sha256 h;
    h.update("run\n").update(a.gen->provider).update("\n").update(a.gen->base_url);
    h.update("\n").update(a.gen->model).update("\n");
    for (const auto& p : problems) {
      h.update(p.task_id).update("\n");
      for (const auto& f : p.test_files) h.update(f.path).update("\n").update(f.content);
    }
    fingerprint = h.hex();
  }
  if (fs::exists(journal_path) && !a.resume)
    throw InputError(out.string(), 0, "",
                     "holds an earlier run; pass --resume to finish it, or "
                     "choose another --out");
  if (a.resume && fs::exists(out / "run.json")) {
    std::ifstream in(out / "run.json");
    const auto prev = nlohmann::ordered_json::parse(in, nullptr, false);
    const nlohmann::ordered_json now = {{"jobs_fingerprint", fingerprint}};
    if (!prev.is_discarded())
      check_run_identity(out / "run.json", out, identity_part(prev, now), now, kRunIdentity);
  }
  fs::create_directories(out);
  if (a.slurm.executor == "slurm" && a.slurm.shard_of.empty()) {
    if (command == "run")
      return run_slurm_generation(a, out, problems, fingerprint, load_errors, notes, t0,
                                  interrupts());
    return run_slurm_submitter(command, a, out, problems, jobs, pre_graded, fingerprint,
                               load_errors, notes, t0, interrupts());
  }
  if (!a.slurm.shard_of.empty()) {
    // Two attempts of one shard must never append to its journal at once (a cancelled task
    // can outlive the state Slurm reports for it by KillWait). flock works across nodes on
    // NFS (as fcntl locks); the descriptor stays open until this process exits.
    int lock = open((out / "shard.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock < 0 || flock(lock, LOCK_EX) != 0)
      throw std::runtime_error("cannot lock " + (out / "shard.lock").string());
  }

  // kjudge run: the generation side lives in the same directory (generation.jsonl, answers/).
  std::map<std::string, const Problem*> by_id;
  for (const auto& p : problems) by_id[p.task_id] = &p;
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
        jobs.push_back({by_id[r.task_id], solution_of(r, *by_id[r.task_id])});
  }

  // The machine.
  MachineInfo machine = probe_machine();
  fs::path cache_dir = a.cache_dir.empty() ? default_cache_dir() : fs::path(a.cache_dir);
  if (!a.skip_env_check) {
    std::vector<const Problem*> ps;
    for (const auto& p : problems) ps.push_back(&p);
    EnvCheckOptions eo;
    eo.cache_dir = a.no_cache ? fs::path() : cache_dir;
    eo.need_gpus = !a.build_only;
    auto checks = check_environment(machine, ps, eo);
    if (any_failed(checks)) {
      fmt::print(stderr, "{}", format_checks(checks));
      throw Error(exit_code::environment,
                  "the environment check failed; fix the above or pass --skip-env-check");
    }
  }

  const ResolvedSteps steps = resolve_step_options(a.steps, a.log_cap);
  const bool sandboxed = steps.settings.sandbox;
  const fs::path bwrap = steps.settings.bwrap;
  const std::string& sandbox_mode = steps.mode;
  const std::optional<std::uint64_t> memory_limit = steps.settings.memory_limit_bytes;
  const std::string& limits_how = steps.limits_how;

  nlohmann::json run_json =
      run_json_header(command, a, jobs.size() + pre_graded.size(), fingerprint);
  run_json["machine"] = machine_json(machine);
  run_json["options"].update({{"workers", a.workers},
                              {"tests_per_gpu", a.tests_per_gpu},
                              {"gpus", a.gpus},
                              {"cache", !a.no_cache},
                              {"quiet_retry", !a.no_quiet_retry},
                              {"judge_error_retries", a.retries},
                              {"sandbox", sandbox_mode},
                              {"memory_limit_bytes", *memory_limit},
                              {"sandbox_limits", limits_how},
                              {"build_only", a.build_only}});
  write_json_atomically(out / "run.json", run_json);

  // The benchmark stage rebuilds solutions after the correctness stage has consumed the jobs.
  std::map<std::pair<std::string, int>, Solution> solution_files;
  if (a.benchmark)
    for (const auto& j : jobs) solution_files[{j.problem->task_id, j.solution.sample}] = j.solution;

  // Resume: what the journal holds is done.
  std::vector<GradedSolution> results;
  Journal journal(journal_path, &results);
  std::set<SolutionKey> done;
  for (const auto& g : results) done.insert({g.task_id, g.sample});
  int already = static_cast<int>(done.size());
  std::vector<EvalJob> todo;
  for (auto& j : jobs)
    if (!done.count({j.problem->task_id, j.solution.sample})) todo.push_back(std::move(j));
  std::vector<GradedSolution> pre_todo;
  for (auto& g : pre_graded)
    if (!done.count({g.task_id, g.sample})) pre_todo.push_back(std::move(g));

  int total = already + static_cast<int>(todo.size() + pre_todo.size());
  if (command == "run")
    total =
        static_cast<int>(problems.size()) * a.gen->samples + static_cast<int>(pre_graded.size());
  Progress progress(total, already, !a.quiet);
  if (a.resume && already)
    fmt::print(stderr, "kjudge: resuming {}: {} of {} already graded\n", out.string(), already,
               total);
  const bool shard_task = !a.slurm.shard_of.empty();
  auto record = [&](const GradedSolution& g) {
    // An array task being cancelled or preempted: Slurm signals every process of the job, so
    // the steps in flight die of it too (a compiler "killed by SIGTERM" would read as the
    // model's build_error). What ends after our handler has run, or died of that SIGTERM
    // (slurm/task.h), is left to the resubmitted shard, which resumes this journal.
    if (shard_task && !slurm::keep_shard_result(g, g_stop)) return;
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
  eo.sandbox = sandboxed;
  eo.bwrap = bwrap;
  eo.memory_limit_bytes = *memory_limit;
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
  Evaluator evaluator(eo, machine);
  g_running.store(&evaluator);
  signal(SIGINT, on_interrupt);
  signal(SIGTERM, on_interrupt);
  if (session) {
    // Answers are graded as they arrive: the generator feeds the evaluator.
    JobFeed feed;
    for (auto& j : todo) feed.push(std::move(j));
    g_session.store(session.get());
    std::thread producer([&] {
      session->run(problems, [&](const GenRecord& r) {
        if (by_id.count(r.task_id))
          feed.push({by_id[r.task_id], solution_of(r, *by_id[r.task_id])});
      });
      feed.close();
    });
    evaluator.run(feed, record);
    producer.join();
    g_session.store(nullptr);
    for (const auto& r : session->records())
      if (by_id.count(r.task_id))
        solution_files[{r.task_id, r.sample}] = solution_of(r, *by_id[r.task_id]);
  } else {
    evaluator.run(std::move(todo), record);
  }
  g_running.store(nullptr);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  progress.finish();

  nlohmann::json performance;
  if (a.benchmark && !evaluator.stopped()) {
    BenchStageInput bi;
    bi.problems = &problems;
    bi.solutions = &solution_files;
    bi.results = &results;
    bi.eval = eo;
    bi.eval.keep_workspaces = a.keep_workspaces;
    bi.bench.runs = a.runs;
    bi.bench.warmups = a.warmups;
    bi.bench.gpus = a.gpus;
    bi.bench.profiler = a.profiler.empty() ? locate_profiler() : fs::path(a.profiler);
    bi.bench.main_guard = eo.main_guard;
    bi.bench.step = {sandboxed, bwrap, *memory_limit, a.log_cap};
    bi.machine = machine;
    bi.run_dir = out;
    bi.progress = !a.quiet;
    bi.stop = &g_stop;
    if (shard_task)
      bi.keep_line = [](const nlohmann::json& j) { return slurm::keep_shard_timing(j, g_stop); };
    signal(SIGINT, on_interrupt);
    signal(SIGTERM, on_interrupt);
    performance = run_bench_stage(bi);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
  }

  SummaryOptions so;
  so.ks = a.ks;
  so.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  nlohmann::json summary = summarize(results, so);
  summary["command"] = command;
  summary["run_dir"] = out.string();
  summary["complete"] =
      static_cast<int>(results.size()) == total && !evaluator.stopped() && !g_stop.load();
  summary["load_errors"] = load_errors;
  summary["notes"] = notes;
  summary["sandbox"] = sandbox_mode;
  summary["sandbox_limits"] = limits_how;
  if (a.build_only) {
    summary["build_only"] = true;
    summary["notes"].push_back(
        "--build-only: every solution was built and none was tested; 'pass' means it built, "
        "and pass@k says nothing of correctness");
  }
  nlohmann::json broken = nlohmann::json::array();
  for (const auto& [gpu, why] : evaluator.broken_gpus()) {
    broken.push_back({{"gpu", gpu}, {"reason", why}});
    fmt::print(stderr, "kjudge: GPU {} was taken out of the pool: {}\n", gpu, why);
  }
  summary["broken_gpus"] = broken;
  if (session) {
    summary["generation"] = session->finish(problems, "generation-summary.json", so.wall_s);
    if (session->failed_requests() > 0)
      summary["notes"].push_back(fmt::format("{} requests to the model failed; --resume asks again",
                                             session->failed_requests()));
  }
  nlohmann::json warnings = nlohmann::json::array();
  if (!sandboxed)
    warnings.push_back("--sandbox none: solutions ran unconfined, with the judge's rights");
  // Where the main guard is off, an exit(0) of the solution's own passes a test (docs/cheats.md).
  summary["main_guard"] = eo.main_guard->empty()
                              ? (guard_off ? "off (KJUDGE_MAIN_GUARD=none)" : "off (not found)")
                              : "on";
  if (eo.main_guard->empty())
    warnings.push_back(
        "the main guard was off: a test program that exited 0 before its main() "
        "returned counted as a pass");
  if (!performance.is_null()) {
    summary["performance"] = performance;
    for (const auto& w : performance.value("warnings", nlohmann::json::array()))
      warnings.push_back(w);
  }
  if (!warnings.empty()) summary["warnings"] = warnings;
  write_json_atomically(out / "summary.json", summary);

  if (a.json) fmt::print("{}\n", summary.dump(2));
  if (!a.quiet) {
    fmt::print(stderr, "{}", report::terminal_table(summary));
    fmt::print(stderr, "results: {}  summary: {}\nreport: kjudge report {} --html {}\n",
               journal_path.string(), (out / "summary.json").string(), out.string(),
               (out / "report.html").string());
  }

  if (evaluator.stopped() || g_stop.load()) {
    fmt::print(stderr, "kjudge: interrupted; finish with: kjudge {} ... --out {} --resume\n",
               command, out.string());
    return exit_code::interrupted;
  }
  return finished_run_exit_code(command, summary, load_errors != 0);
}

void add_run_options(CLI::App* c, RunArgs& a) {
  c->add_option("-k", a.ks, "pass@k values, e.g. -k 1,3,10")
      ->delimiter(',')
      ->check(CLI::Range(1, 1000000));
  c->add_option("--out", a.out,
                "Run directory (results.jsonl, summary.json, run.json); "
                "default kjudge-runs/<command>-<time>");
  c->add_flag("--resume", a.resume, "Finish the run in --out: grade only what its journal lacks");
  add_filter_options(c, a.filter);
  c->add_option("--workers", a.workers, "Parallel builds (default: one per CPU)")
      ->check(CLI::Range(0, 4096));
  c->add_option("--tests-per-gpu", a.tests_per_gpu, "Correctness runs sharing one GPU (default 4)")
      ->check(CLI::Range(1, 256));
  c->add_option("--gpus", a.gpus, "GPU indices to use (default: all)")->delimiter(',');
  c->add_flag("--no-cache", a.no_cache, "Build everything; neither read nor write the build cache");
  c->add_option("--cache-dir", a.cache_dir,
                "Build cache (default $KJUDGE_CACHE_DIR or ~/.cache/kjudge)");
  c->add_option("--work-dir", a.work_dir, "Where workspaces are made (default: a temp dir)");
  c->add_flag("--keep-workspaces", a.keep_workspaces, "Leave each solution's workspace on disk");
  c->add_flag("--skip-env-check", a.skip_env_check, "Run even if `kjudge doctor` finds a failure");
  c->add_flag("--json", a.json, "Print the summary JSON on stdout");
  c->add_flag("-q,--quiet", a.quiet, "No progress and no summary table on stderr");
  c->add_option("--log-cap", a.log_cap, "Bytes of each build/test log kept (default 16384)")
      ->check(CLI::Range(std::size_t{0}, std::size_t{1} << 30));
  c->add_option("--retries", a.retries, "Retries of a judge_error (default 2)")
      ->check(CLI::Range(0, 100));
  add_step_options(c, a.steps);
  add_slurm_options(c, a.slurm);
  c->add_flag("--build-only", a.build_only,
              "Build every solution and stop (no GPU needed): 'pass' means it built and was "
              "not refused; no test runs");
  c->add_flag("--benchmark", a.benchmark,
              "After the tests: time every passing solution's benchmark_command against the "
              "problem's baseline, interleaved on a GPU held alone (perf.jsonl)");
  c->add_option("--runs", a.runs, "Timed runs per side with --benchmark (default 5)")
      ->check(CLI::Range(1, 1000));
  c->add_option("--warmups", a.warmups, "Discarded runs per side first (default 1)")
      ->check(CLI::Range(0, 100));
  c->add_option("--profiler", a.profiler,
                "The profiler library (default: $KJUDGE_PROFILER, or libkjudge_profiler.so "
                "beside kjudge)");
  c->add_flag("--no-quiet-retry", a.no_quiet_retry,
              "Take a timeout under load as final instead of retrying it on a quiet machine");
}

}  // namespace

void add_run_commands(CLI::App& app, int& rc) {
  auto val = std::make_shared<RunArgs>();
  auto* v = app.add_subcommand("validate",
                               "Evaluate every problem's baseline solution (the "
                               "benchmark's own integrity check)");
  v->add_option("PACK", val->problems, "Problems pack, problems.jsonl or problem directories")
      ->required();
  add_run_options(v, *val);
  v->callback([val, &rc] { rc = run_jobs("validate", *val); });

  auto ev = std::make_shared<RunArgs>();
  auto* e = app.add_subcommand("evaluate", "Evaluate model solutions against the hidden tests");
  e->add_option("--problems", ev->problems, "Problems pack, problems.jsonl or problem directories")
      ->required();
  e->add_option("--solutions", ev->solutions,
                "Solutions pack, solutions.jsonl or solution directories")
      ->required();
  add_run_options(e, *ev);
  e->callback([ev, e, &rc] {
    // A TritonBench folder and a Triton solutions pack: the Triton judge (docs/triton.md).
    if (triton::is_triton_evaluation(ev->problems, ev->solutions)) {
      rc = evaluate_triton_pack(*e);
      return;
    }
    rc = run_jobs("evaluate", *ev);
  });

  auto rn = std::make_shared<RunArgs>();
  rn->gen = std::make_shared<GenArgs>();
  auto* r = app.add_subcommand("run",
                               "Generate solutions with a model and grade each answer as it "
                               "arrives (generate + evaluate in one pipeline)");
  r->add_option("--problems", rn->problems, "Problems pack, problems.jsonl or problem directories")
      ->required();
  add_model_options(r, *rn->gen, /*standalone=*/false);
  add_run_options(r, *rn);
  r->callback([rn, &rc] { rc = run_jobs("run", *rn); });
}

}  // namespace kjudge
