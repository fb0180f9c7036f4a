// kjudge serve: the judging service (issue 7). Its users: cmd_users.cpp.
#include <fmt/format.h>
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <memory>
#include <thread>

#include "board/api_server.h"
#include "board/judge_service.h"
#include "board/store.h"
#include "cli/commands.h"
#include "cli/load.h"
#include "cli/option_ranges.h"
#include "cli/step_options.h"
#include "core/byte_size.h"
#include "core/datapack.h"
#include "core/error.h"
#include "eval/build_cache.h"
#include "kernelbench/data/problems.h"
#include "perf/benchmarker.h"
#include "slurm/executor.h"
#include "slurm/workers.h"

namespace kjudge {

namespace fs = std::filesystem;

namespace {

struct ServeArgs {
  std::string db = "kjudge-board.db", host = "127.0.0.1", worker_id, gpu_type, cache_dir;
  int port = 8080, max_in_flight = 8, max_runs = 0, bench_runs = 5, max_queued = 0;
  std::string max_stored = "4G";  // --max-stored: code bytes per user
  double max_time = 0;
  std::vector<std::string> packs, tasks, kernelbench;
  std::string python;  // Python tasks' and KernelBench's interpreter
  bool no_judge = false;
  // Task submissions run isolated (task run --isolate) unless --no-isolate: the service judges
  // strangers' code for a ranking, where the harness's memory must be out of its reach.
  bool isolate = true;
  bool workers_only = false;  // judge from the queue, serve no HTTP (a worker; e.g. a Slurm job)
  bool slurm_task = false;    // set by --slurm-workers on the tasks it submits
  slurm::SlurmWorkersArgs slurm;
  StepArgs steps;
  board::HttpLimits http;
};

// Each connection is a descriptor: the soft limit (often 1024) would refuse clients long before
// --max-connections does, so it is raised to the hard one.
void raise_fd_limit() {
  rlimit r{};
  if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
    r.rlim_cur = r.rlim_max;
    setrlimit(RLIMIT_NOFILE, &r);
  }
}

std::atomic<bool> g_stop{false};

// Only a flag: the main thread sees it and stops the server outside the handler.
extern "C" void on_stop_signal(int) { g_stop.store(true); }

// --workers-only: judge until SIGTERM (scancel, the end of a Slurm job's time) or SIGINT, then
// hand what is in flight back to the queue, since this worker id will not be back to take it.
int run_worker(board::Store& store, board::JudgeService& judge,
               const board::JudgeServiceOptions& jo) {
  fmt::print(stderr, "kjudge serve: worker {} on the {} queue, {} pack(s), {} task(s)\n",
             jo.worker_id, store.dialect(), jo.packs.size(), jo.tasks.size());
  while (!g_stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const int back = judge.abandon();
  fmt::print(stderr,
             "kjudge serve: worker {} stopped after judging {}; {} job(s) back in the "
             "queue\n",
             jo.worker_id, judge.judged(), back);
  return exit_code::ok;
}

int serve(const ServeArgs& a) {
  if (a.slurm.count > 0 || a.workers_only) {
    // Workers on other machines share the queue through PostgreSQL; a SQLite file on shared
    // storage would be written by several hosts at once.
    if (a.db.rfind("postgres", 0) != 0)
      throw InputError("--db", 0, "",
                       "--workers-only and --slurm-workers need the shared queue: a "
                       "postgresql://... database");
    if (a.no_judge) throw InputError("--no-judge", 0, "", "a worker that judges nothing is idle");
  }
  if (a.slurm.count == 0 &&
      (!a.slurm.partition.empty() || a.slurm.gpus_per_task > 0 || !a.slurm.sbatch_args.empty()))
    throw InputError("--partition", 0, "",
                     "--partition, --gpus-per-task and --sbatch-arg go with --slurm-workers");
  // A task never submits again, even when --slurm-workers comes from a --config file that the
  // task reads too.
  if (a.slurm.count > 0 && !a.slurm_task) {
    slurm::submit_slurm_workers(a.slurm, slurm::own_cmdline());
    return exit_code::ok;
  }
  board::JudgeServiceOptions jo;
  // --pack NAME=PATH (or PATH: named after its file).
  for (const auto& p : a.packs) {
    std::size_t eq = p.find('=');
    std::string name =
        eq == std::string::npos ? fs::path(p).stem().stem().string() : p.substr(0, eq);
    fs::path path = eq == std::string::npos ? fs::path(p) : fs::path(p.substr(eq + 1));
    LoadReport report;
    jo.packs[name] = read_problems_any(path, &report);
    print_load_errors(report);
    fmt::print(stderr, "kjudge serve: pack {} ({} problems)\n", name, jo.packs[name].size());
  }
  // --tasks DIR: a task folder, or a folder of them.
  for (const auto& t : a.tasks) {
    fs::path dir(t);
    if (fs::exists(dir / "task.yml"))
      jo.tasks[dir.filename().string()] = fs::absolute(dir);
    else
      for (const auto& e : fs::directory_iterator(dir))
        if (fs::exists(e.path() / "task.yml"))
          jo.tasks[e.path().filename().string()] = fs::absolute(e.path());
  }
  // --kernelbench NAME=DIR (or DIR: named "kernelbench"): KernelBench's data folder.
  for (const auto& k : a.kernelbench) {
    std::size_t eq = k.find('=');
    const std::string name = eq == std::string::npos ? "kernelbench" : k.substr(0, eq);
    const fs::path dir = eq == std::string::npos ? fs::path(k) : fs::path(k.substr(eq + 1));
    jo.kernelbench[name] = kernelbench::load_kernelbench(dir);
    fmt::print(stderr, "kjudge serve: KernelBench {} ({} problems)\n", name,
               jo.kernelbench[name].problems.size());
  }
  jo.python = a.python;
  const ResolvedSteps steps = resolve_step_options(a.steps, 16 * 1024);
  MachineInfo machine = probe_machine();
  jo.eval.sandbox = steps.settings.sandbox;
  jo.eval.bwrap = steps.settings.bwrap;
  jo.eval.memory_limit_bytes = steps.settings.memory_limit_bytes;
  jo.eval.cache_dir = a.cache_dir.empty() ? default_cache_dir() : fs::path(a.cache_dir);
  jo.step = steps.settings;
  if (a.workers_only) jo.stopping = &g_stop;
  jo.worker_id = !a.worker_id.empty() ? a.worker_id
                 : a.workers_only     ? slurm::worker_id_from_env()
                                      : "local";
  jo.max_in_flight = a.max_in_flight;
  jo.task_max_time = a.max_time;
  jo.task_max_runs = a.max_runs;
  jo.task_isolate = a.isolate;
  // Pack boards' ranked runs: timed as `kjudge evaluate --benchmark` times.
  jo.bench.runs = a.bench_runs;
  jo.bench.profiler = locate_profiler();
  jo.bench.step = steps.settings;
  jo.process = !a.no_judge;
  jo.gpu_type = !a.gpu_type.empty()    ? a.gpu_type
                : machine.gpus.empty() ? "host"
                                       : machine.gpus[0].name;

  const std::optional<std::uint64_t> quota = parse_byte_size(a.max_stored);
  if (!quota || *quota > static_cast<std::uint64_t>(INT64_MAX)) {
    throw Error(exit_code::usage,
                fmt::format("--max-stored '{}' is not a size (e.g. 4G, 512M, 0)", a.max_stored));
  }
  board::Store store(board::open_db(a.db));
  store.set_storage_quota(static_cast<std::int64_t>(*quota));
  if (a.workers_only) {
    // Before the first claim: a worker cancelled at once must still drop what it took.
    std::signal(SIGINT, on_stop_signal);
    std::signal(SIGTERM, on_stop_signal);
  }
  board::JudgeService judge(store, jo, machine);
  if (a.workers_only) return run_worker(store, judge, jo);
  raise_fd_limit();
  board::ApiServer api(store, judge, a.max_queued, a.http);
  if (!api.start(a.host, a.port)) {
    throw Error(exit_code::environment,
                fmt::format("serve: cannot listen on {}:{}", a.host, a.port));
  }
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  // The port line comes last and alone on stdout, so a script (or a test) can read it.
  fmt::print(stderr,
             "kjudge serve: {} database, {} pack(s), {} task(s){}, {} KernelBench folder(s), GPU "
             "type '{}'{}\n",
             store.dialect(), jo.packs.size(), jo.tasks.size(),
             jo.tasks.empty() ? "" : (jo.task_isolate ? " run isolated" : " run in one process"),
             jo.kernelbench.size(), jo.gpu_type, jo.process ? "" : " (not judging: --no-judge)");
  fmt::print("listening on http://{}:{}\n", a.host, api.port());
  std::fflush(stdout);
  while (!g_stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  api.stop();
  judge.stop();
  fmt::print(stderr, "kjudge serve: stopped\n");
  return exit_code::ok;
}

}  // namespace

void add_serve_commands(CLI::App& app, int& rc) {
  auto a = std::make_shared<ServeArgs>();
  CLI::App* c = app.add_subcommand(
      "serve", "The judging service: HTTP/JSON API, work queue and GPU workers (docs/service.md)");
  c->add_option("--db", a->db,
                "sqlite:PATH or a .db path (default kjudge-board.db), or postgresql://...");
  c->add_option("--host", a->host, "Address to listen on (default 127.0.0.1)");
  c->add_option("--port", a->port, "Port (default 8080; 0: any free port, printed on stdout)")
      ->check(CLI::Range(0, 65535));
  c->add_option("--pack", a->packs,
                "A problems pack to judge against, NAME=PATH or PATH (repeatable)");
  c->add_option("--tasks", a->tasks, "A task folder, or a folder of task folders (repeatable)");
  c->add_option("--kernelbench", a->kernelbench,
                "A KernelBench data folder, NAME=DIR or DIR (named kernelbench): targets "
                "kernelbench:NAME#L1/19 (repeatable)");
  c->add_option("--python", a->python,
                "Python tasks and KernelBench: the interpreter, with torch (default "
                "$KJUDGE_PYTHON or python3)");
  c->add_option("--worker-id", a->worker_id,
                "Names this instance's workers in the queue (default local)");
  c->add_option("--gpu-type", a->gpu_type,
                "The GPU type runs rank under (default: this GPU's name)");
  c->add_option("--max-in-flight", a->max_in_flight, "Pack jobs judged at once (default 8)")
      ->check(CLI::Range(1, 4096));
  c->add_option("--max-queued", a->max_queued,
                "Unfinished (queued or running) submissions one user may have; more get HTTP "
                "429 (default 0: no limit; admins have none)")
      ->check(CLI::Range(0, 100000000));
  c->add_option("--max-stored", a->max_stored,
                "Bytes of code one user may store over all their submissions; past it a "
                "submission gets HTTP 429 (default 4G; 0: no limit; admins have none)");
  c->add_option("--max-connections", a->http.max_connections,
                "HTTP connections held at once (long polls included); more are answered 503 "
                "with Retry-After (default 10000)")
      ->check(CLI::Range(1, 1000000));
  c->add_option("--request-timeout", a->http.request_timeout_s,
                "Seconds a client has to send a whole request, headers and body, however slowly "
                "it sends; an idle keep-alive connection is closed after as long (default 10)")
      ->check(finite_range(0.01, 3600));
  c->add_option("--max-time", a->max_time,
                "Task benchmarks: seconds of timed calls per benchmark at most (default 10; 30 "
                "ranked), as `task run --max-time`")
      ->check(finite_range(0.001, 86400));
  c->add_option("--max-runs", a->max_runs,
                "Task benchmarks: timed calls per benchmark at most (default 1000)")
      ->check(CLI::Range(1, 100000000));
  c->add_flag("--isolate,!--no-isolate", a->isolate,
              "Task submissions: run each in a process of its own, apart from the harness that "
              "checks and times it (as `task run --isolate`; docs/tasks.md). The default; "
              "--no-isolate runs them in one process");
  c->add_option("--bench-runs", a->bench_runs,
                "Pack boards: timed runs per side (solution, baseline) of a ranked run (default 5)")
      ->check(CLI::Range(1, 10000));
  c->add_option("--cache-dir", a->cache_dir,
                "Build cache (default $KJUDGE_CACHE_DIR or ~/.cache/kjudge)");
  c->add_flag("--no-judge", a->no_judge, "Accept and queue submissions, judge none (a front end)");
  c->add_flag("--workers-only", a->workers_only,
              "Judge from the shared queue and serve no HTTP (a worker beside a --no-judge "
              "front end; needs --db postgresql://...). SIGTERM returns its jobs in flight to "
              "the queue");
  c->add_option("--slurm-workers", a->slurm.count,
                "Submit N --workers-only workers as one Slurm job array and exit (docs/slurm.md)")
      ->check(CLI::Range(1, 100000));
  c->add_option("--partition", a->slurm.partition, "With --slurm-workers: the Slurm partition");
  c->add_option("--gpus-per-task", a->slurm.gpus_per_task,
                "With --slurm-workers: GPUs per worker (--gres=gpu:N; default 0, host-only)")
      ->check(CLI::Range(0, 64));
  c->add_option("--sbatch-arg", a->slurm.sbatch_args,
                "With --slurm-workers: passed to sbatch verbatim (repeatable), e.g. "
                "--sbatch-arg=--time=12:00:00")
      ->allow_extra_args(false);
  c->add_flag("--slurm-worker-task", a->slurm_task)->group("");  // what --slurm-workers runs
  c->add_option("--log-dir", a->slurm.log_dir,
                "With --slurm-workers: where the script and the workers' logs go, on shared "
                "storage (default kjudge-workers)");
  add_step_options(c, a->steps);
  c->callback([a, &rc] { rc = serve(*a); });
}

}  // namespace kjudge
