// The judging half of a KernelBench run, fed while it runs.
// Declared, and explained, in kernelbench/judge/eval_stream.h.
#include "kernelbench/judge/eval_stream.h"

#include <fmt/format.h>

#include <condition_variable>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <fstream>
#include <mutex>
#include <thread>

#include "core/atomic_file.h"
#include "core/input_error.h"
#include "core/random_secret.h"
#include "core/run_identity.h"
#include "core/sha256.h"
#include "core/time_stamp.h"
#include "kernelbench/judge/cupti.h"
#include "kernelbench/judge/journal.h"
#include "kernelbench/judge/solo_gate.h"
#include "perf/benchmarker.h"
#include "triton/runner/python_bytecode.h"

namespace kjudge::kernelbench {
namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace {

constexpr const char* kKind = "kjudge-kernelbench-run";

constexpr IdentityField kFields[] = {
    {"data_dir", "DIR"},
    {"solutions", "--solutions / --self"},
    {"level", "--level"},
    {"problems", "--problem"},
    {"limit", "--limit"},
    {"trials", "--trials"},
    {"atol", "--atol"},
    {"rtol", "--rtol"},
    {"weights_seed", "--weights-seed"},
    {"seed", "--seed"},
    {"speedup", "--no-speedup"},
    {"compile", "--no-compile"},
    {"timing", "--perf-trials / --warmup / --min-perf-trials / --max-timing-s"},
    {"hacks", "--hacks"},
    {"jobs_fingerprint", "the solutions and their problems", true},
};

std::string absolute_path(const std::string& p) {
  std::error_code ec;
  fs::path abs = fs::weakly_canonical(fs::absolute(p), ec);
  return ec ? fs::absolute(p).lexically_normal().string() : abs.string();
}

ordered_json identity(const EvalOptions& a, const StreamJobs& jobs, std::uint64_t seed) {
  std::vector<std::string> problems = a.problems;
  std::sort(problems.begin(), problems.end());
  return {{"data_dir", absolute_path(a.dir)},
          {"solutions", jobs.label},
          {"level", a.level == 0 ? ordered_json(nullptr) : ordered_json(a.level)},
          {"problems", problems},
          {"limit", a.limit == 0 ? ordered_json(nullptr) : ordered_json(a.limit)},
          {"trials", a.trials},
          {"atol", a.atol},
          {"rtol", a.rtol},
          {"weights_seed", a.weights_seed},
          {"seed", seed},
          {"speedup", a.speedup},
          {"compile", a.speedup && a.compile},
          {"timing", a.speedup ? ordered_json{{"warmup", a.timing.warmup},
                                              {"trials", a.timing.trials},
                                              {"min_trials", a.timing.min_trials},
                                              {"budget_s", a.timing.budget_s}}
                               : ordered_json(nullptr)},
          {"hacks", a.hacks == HackPolicy::fail ? "fail" : "flag"},
          {"jobs", jobs.keys.size()},
          {"jobs_fingerprint", jobs.fingerprint}};
}

// run.json: the identity, the seed (which --resume reuses), when it started and was resumed.
ordered_json read_run_json(const fs::path& run_dir) {
  const fs::path path = run_dir / "run.json";
  std::ifstream in(path);
  if (!in)
    throw InputError(path.string(), 0, "",
                     "missing: " + run_dir.string() +
                         " holds results but no record of what they judge; choose another --out");
  const auto prev = ordered_json::parse(in, nullptr, false);
  if (prev.is_discarded() || !prev.is_object() || prev.value("kind", "") != kKind ||
      !prev.contains("identity") || !prev["identity"].is_object())
    throw InputError(path.string(), 0, "kind",
                     std::string("not a kjudge kernelbench eval run (") + kKind + ")");
  return prev;
}

void write_run_json(const fs::path& run_dir, const ordered_json& id, const ordered_json& prev) {
  const std::string now = iso8601_utc(std::time(nullptr));
  ordered_json j = {
      {"schema_version", 1}, {"kind", kKind},     {"kjudge_version", KJUDGE_VERSION},
      {"identity", id},      {"started_at", now}, {"resumed_at", ordered_json::array()}};
  if (prev.is_object()) {
    if (prev.contains("started_at")) j["started_at"] = prev["started_at"];
    if (prev.contains("resumed_at") && prev["resumed_at"].is_array())
      j["resumed_at"] = prev["resumed_at"];
    j["resumed_at"].push_back(now);
  }
  write_json_atomically(run_dir / "run.json", j);
}

fs::path default_cache_dir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return fs::path(x) / "kjudge/kernelbench";
  if (const char* h = std::getenv("HOME"); h && *h)
    return fs::path(h) / ".cache/kjudge/kernelbench";
  return {};
}

bool says_out_of_memory(const std::string& text) {
  return text.find("OutOfMemory") != std::string::npos ||
         text.find("out of memory") != std::string::npos;
}

// Out of GPU memory anywhere the GPU was used: a stage that raised (the CUDA context's creation
// at setup included), or a trial or timed pair whose call raised.
bool out_of_memory(const RunOutcome& o) {
  if (o.status == RunStatus::error)
    return o.error.stage != "syntax" && o.error.stage != "import" &&
           (says_out_of_memory(o.error.exception_type) || says_out_of_memory(o.error.message));
  if (o.status != RunStatus::ok) return false;
  for (const TrialCheck& t : o.trials)
    if (!t.ok && says_out_of_memory(t.why)) return true;
  for (const TimedPair& p : o.pairs)
    if (!p.ok && says_out_of_memory(p.why)) return true;
  return false;
}

bool torch_missing(const Result& r, const RunOutcome& o) {
  return r.verdict == Verdict::env_error && o.error.stage == "setup" &&
         (o.error.exception_type == "ModuleNotFoundError" ||
          o.error.exception_type == "ImportError");
}

}  // namespace

struct EvalStream::State {
  EvalOptions a;
  EvalSandbox sandbox;
  const Dataset& dataset;
  StreamJobs jobs;
  Note note;
  const std::atomic<bool>* stop = nullptr;

  EvalDone done;
  std::uint64_t seed = 0;
  Runner runner;
  std::string cupti_why, hf_why;
  ordered_json bytecode = nullptr;
  fs::path cache_root;
  GradeOptions gopt;
  std::unique_ptr<Journal> journal;
  std::unique_ptr<GpuGate> gate;
  SoloGate solo;
  // Problems whose runs ran out of memory beside others: their later samples run solo at once.
  std::set<std::string> solo_problems;

  std::mutex mu;
  std::condition_variable cv;
  std::deque<Solution> queue;
  bool closed = false;
  std::size_t expected = 0;  // for the progress count: the solutions not judged before
  std::size_t added = 0, finished = 0;
  std::vector<Graded> graded;
  bool no_torch = false;
  std::string no_torch_detail;
  ordered_json env = nullptr;
  std::chrono::steady_clock::time_point started;
  std::vector<std::thread> pool;

  State(const EvalOptions& opts, const EvalSandbox& sb, const Dataset& d, StreamJobs j, Note n,
        const std::atomic<bool>* s)
      : a(opts), sandbox(sb), dataset(d), jobs(std::move(j)), note(std::move(n)), stop(s) {}

  bool stopping() const { return stop && stop->load(); }
  Result judge_one(const Solution& s);
  void work();
};

Result EvalStream::State::judge_one(const Solution& s) {
  std::vector<Finding> found = static_findings(s.code, s.problem->code);
  if (s.code.find_first_not_of(" \t\r\n") == std::string::npos)
    return not_run(s, Verdict::compile_error, "the solution has no code", found, gopt);
  if (!defines_model_new(s.code))
    return not_run(s, Verdict::compile_error, "the solution defines no ModelNew", found, gopt);
  if (s.problem->needs_hf() && runner.hf_home.empty())
    return not_run(s, Verdict::env_error, "not run (not charged): " + hf_why, found, gopt);
  {
    std::lock_guard<std::mutex> lock(mu);
    if (no_torch) return not_run(s, Verdict::env_error, no_torch_detail, found, gopt);
  }
  Request req;
  req.reference_code = s.problem->code;
  req.solution_code = s.code;
  req.problem = fmt::format("{} ({})", s.problem->key(), s.problem->file);
  req.level = s.problem->level;
  req.seed = a.weights_seed;
  for (int i = 0; i < a.trials; ++i)
    req.trial_seeds.push_back(trial_seed(seed, s.problem->key(), i));
  req.atol = a.atol;
  req.rtol = a.rtol;
  req.time = a.speedup;
  req.compile = a.speedup && a.compile;
  req.timing = a.timing;
  req.timing.cupti = !runner.profiler.empty();
  req.secret = random_u64();
  req.gpu_memory_bytes = a.gpu_memory_bytes;
  req.hf_offline = s.problem->needs_hf();
  // The extensions it builds, kept by its source: the same code is never built twice, and no
  // other code shares the folder.
  const std::string code_hash = sha256_hex(s.code).substr(0, 24);
  const fs::path ws = cache_root.empty()
                          ? done.run_dir / "work" /
                                fmt::format("L{}-{}-{}", s.problem->level, s.problem->id, s.sample)
                          : cache_root / code_hash;
  bool known_solo = false;
  if (a.workers > 1) {
    std::lock_guard<std::mutex> lock(mu);
    known_solo = solo_problems.count(s.problem->key()) > 0;
  }
  auto run_once = [&](bool alone) {
    SoloGate::Hold hold(solo, alone);
    req.alone = alone;
    return run_kernelbench(runner, req, ws, *gate);
  };
  RunOutcome o = run_once(known_solo);
  // Out of GPU memory beside others (level 1's inputs of several GB, a level-3 model): the same
  // run again with the GPU's memory its own (solo_gate.h), so that the verdict is the
  // solution's, not its neighbours'. Out of memory alone, it is the solution's (or, in the
  // reference, the problem's on this GPU).
  std::string retried;
  if (known_solo) {
    retried = "judged alone: an earlier run of this problem ran out of GPU memory beside others";
  } else if (a.workers > 1 && out_of_memory(o)) {
    {
      std::lock_guard<std::mutex> lock(mu);
      solo_problems.insert(s.problem->key());
    }
    retried = "ran out of GPU memory beside other runs (" + o.detail.substr(0, 160) +
              "); judged again alone, with the GPU's memory its own";
    o = run_once(true);
  }
  if (cache_root.empty()) {
    std::error_code ec;
    fs::remove_all(ws, ec);
  }
  CuptiEvidence ev = cupti_evidence(o);
  Result r = grade(s, o, std::move(found), std::move(ev.findings), ev.json, gopt);
  if (!retried.empty()) r.json["retried"] = retried;
  if (torch_missing(r, o)) {
    std::lock_guard<std::mutex> lock(mu);
    no_torch_detail = "not run: " + r.detail;
    no_torch = true;
  }
  if (!o.env.empty()) {
    std::lock_guard<std::mutex> lock(mu);
    if (env.is_null()) env = o.env;
  }
  return r;
}

void EvalStream::State::work() {
  for (;;) {
    Solution s;
    {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return !queue.empty() || closed || stopping(); });
      if (stopping() || queue.empty()) return;
      s = std::move(queue.front());
      queue.pop_front();
    }
    Result r;
    try {
      r = judge_one(s);
    } catch (const std::exception& e) {
      r = not_run(s, Verdict::judge_error, std::string("judge: ") + e.what(), {}, gopt);
    }
    journal->append(r);
    std::lock_guard<std::mutex> lock(mu);
    graded.push_back(r.graded());
    const std::size_t n = ++finished;
    if (!a.quiet) {
      std::string sp;
      if (r.eager)
        sp = fmt::format("  speedup {:.3f} [{:.3f}, {:.3f}]", r.eager->estimate, r.eager->low,
                         r.eager->high);
      if (r.compiled) sp += fmt::format("  vs compile {:.3f}", r.compiled->estimate);
      note(fmt::format("[{}/{}] {} {} {}{}{}", n, std::max(expected, added), r.key(), r.file,
                       verdict_name(r.verdict), sp,
                       r.verdict == Verdict::correct ? "" : "  " + r.detail.substr(0, 160)));
    }
  }
}

EvalStream::EvalStream(const EvalOptions& a, const EvalSandbox& sandbox, const Dataset& dataset,
                       StreamJobs jobs, Note note, const std::atomic<bool>* stop)
    : st_(std::make_unique<State>(a, sandbox, dataset, std::move(jobs), std::move(note), stop)) {}

EvalStream::~EvalStream() {
  if (!st_->pool.empty()) {
    {
      std::lock_guard<std::mutex> lock(st_->mu);
      st_->closed = true;
      st_->queue.clear();
    }
    st_->cv.notify_all();
    for (std::thread& t : st_->pool) t.join();
  }
}

const fs::path& EvalStream::run_dir() const { return st_->done.run_dir; }

bool EvalStream::judged(const std::string& key) const { return st_->journal->done(key); }

bool EvalStream::open(EvalStop* why) {
  State& s = *st_;
  const EvalOptions& a = s.a;
  s.done.run_dir = a.out.empty() ? fs::path("kjudge-runs") /
                                       ("kernelbench-" + run_stamp(std::time(nullptr), false))
                                 : fs::path(a.out);
  s.done.results = s.done.run_dir / "results.jsonl";
  const fs::path& run_dir = s.done.run_dir;
  if (fs::exists(s.done.results) && !a.resume)
    throw InputError(s.done.results.string(), 0, "",
                     "holds an earlier run's results; pass --resume to finish that run, or choose "
                     "another --out");
  const bool resuming = a.resume && fs::exists(s.done.results);
  ordered_json prev = nullptr;
  s.seed = a.seed;
  if (resuming) {
    prev = read_run_json(run_dir);
    // The trials' secret seed of the run being finished, unless this command names one.
    if (s.seed == 0 && prev["identity"].contains("seed") &&
        prev["identity"]["seed"].is_number_unsigned())
      s.seed = prev["identity"]["seed"].get<std::uint64_t>();
  }
  if (s.seed == 0) s.seed = random_u64() | 1;
  const ordered_json id = identity(a, s.jobs, s.seed);
  if (resuming)
    check_run_identity(run_dir / "run.json", run_dir, prev["identity"], id, kFields, "identity");

  // The interpreter and the runner.
  auto stopped = [&](EvalStop::Kind kind, const std::string& message) {
    if (why) *why = {kind, message};
    return false;
  };
  Runner& runner = s.runner;
  try {
    runner.python = triton::probe_python(a.python.empty() ? "python3" : a.python);
    runner.script = locate_kernelbench_runner(a.runner);
    runner.end_clock = locate_end_clock();
  } catch (const std::runtime_error& e) {
    return stopped(EvalStop::Kind::environment, e.what());
  }
  if (a.speedup && !a.no_cupti) {
    const fs::path lib = a.profiler.empty() ? locate_profiler() : fs::path(a.profiler);
    std::error_code ec;
    const bool found = !lib.empty() && fs::is_regular_file(lib, ec);
    if ((a.cupti || !a.profiler.empty()) && !found)
      return stopped(EvalStop::Kind::environment,
                     "--cupti needs the profiler library, libkjudge_profiler.so (built beside "
                     "kjudge where CUPTI is installed; or set KJUDGE_PROFILER)");
    if (found)
      runner.profiler = lib;
    else
      s.cupti_why = "the profiler library (libkjudge_profiler.so) was not found";
  } else if (a.speedup) {
    s.cupti_why = "turned off (--no-cupti)";
  }
  const fs::path bytecode_root = a.bytecode_cache.empty() ? triton::default_python_bytecode_root()
                                                          : fs::path(a.bytecode_cache);
  if (!a.no_bytecode_cache && !bytecode_root.empty()) {
    try {
      std::vector<std::string> mods = triton::kRunnerPackages;
      if (s.jobs.needs_hf) mods.push_back("transformers");
      const triton::PythonBytecode bc =
          triton::prepare_python_bytecode(runner.python, bytecode_root, mods);
      runner.python.bytecode_cache = bc.dir;
      s.bytecode = {{"dir", bc.dir.string()},
                    {"compiled", bc.compiled},
                    {"missing", bc.missing},
                    {"failed", bc.failed}};
    } catch (const std::runtime_error& e) {
      s.note(
          fmt::format("kjudge: warning: no bytecode cache, each run compiles torch: {}", e.what()));
    }
  }
  runner.step = s.sandbox.settings;
  runner.machine = probe_machine();
  runner.timeout_s = a.timeout_s;
  // A run may wait for every other worker's timed phase, each within its own limit.
  runner.wait_allowance_s = std::max(600.0, 2.0 * a.workers * a.timeout_s);
  runner.gpu = a.gpu;
  runner.max_jobs = std::max(1, runner.machine.cpu_count / std::max(1, a.workers));
  runner.hf_home = hf_cache(a.hf_home, &s.hf_why);
  s.cache_root = a.no_cache || a.cache_dir.empty() ? (a.no_cache ? fs::path() : default_cache_dir())
                                                   : fs::path(a.cache_dir);

  fs::create_directories(run_dir);
  write_run_json(run_dir, id, prev);
  s.journal = std::make_unique<Journal>(run_dir, s.jobs.keys);
  s.graded = s.journal->earlier();
  s.expected = s.jobs.keys.size() - std::min(s.jobs.keys.size(), s.graded.size());
  if (resuming && !a.quiet)
    s.note(fmt::format("kjudge: resuming {}: {} of {} solutions already judged", run_dir.string(),
                       s.journal->earlier().size(), s.jobs.keys.size()));
  fs::create_directories(run_dir / "work");

  s.gopt.hacks = a.hacks;
  s.gopt.side_work_ms = a.timing.side_work_ms;
  s.gate = std::make_unique<GpuGate>(a.gpu >= 0 ? a.gpu : (runner.machine.gpus.empty() ? -1 : 0),
                                     a.timeout_s);
  s.started = std::chrono::steady_clock::now();
  const std::size_t n = std::max<std::size_t>(
      1, std::min<std::size_t>(a.workers, std::max<std::size_t>(1, s.expected)));
  for (std::size_t i = 0; i < n; ++i) s.pool.emplace_back([&s] { s.work(); });
  return true;
}

void EvalStream::add(Solution sol) {
  {
    std::lock_guard<std::mutex> lock(st_->mu);
    st_->queue.push_back(std::move(sol));
    ++st_->added;
  }
  st_->cv.notify_one();
}

EvalDone EvalStream::finish() {
  State& s = *st_;
  {
    std::lock_guard<std::mutex> lock(s.mu);
    s.closed = true;
  }
  s.cv.notify_all();
  for (std::thread& t : s.pool) t.join();
  s.pool.clear();
  std::error_code ec;
  fs::remove(s.done.run_dir / "work", ec);  // empty by now

  const EvalOptions& a = s.a;
  EvalDone& done = s.done;
  ordered_json summary = summarize(s.graded);
  for (const Graded& g : s.graded) {
    done.judge_errors = done.judge_errors || g.verdict == Verdict::judge_error;
    done.env_errors = done.env_errors || g.verdict == Verdict::env_error;
  }
  summary["schema_version"] = 1;
  summary["kind"] = "kjudge-kernelbench-summary";
  summary["run"] = {
      {"data_dir", s.dataset.dir.string()},
      {"solutions", s.jobs.label},
      {"run_dir", done.run_dir.string()},
      {"results", done.results.string()},
      {"solutions_selected", s.jobs.keys.size()},
      {"judged_now", s.finished},
      {"earlier", s.journal->earlier().size()},
      {"seconds",
       std::chrono::duration<double>(std::chrono::steady_clock::now() - s.started).count()},
      {"env", s.env},
      {"options",
       {{"python", s.runner.python.executable},
        {"python_version", s.runner.python.version},
        {"runner", s.runner.script.string()},
        {"workers", a.workers},
        {"timeout_s", a.timeout_s},
        {"trials", a.trials},
        {"atol", a.atol},
        {"rtol", a.rtol},
        {"speedup", a.speedup},
        {"compile", a.speedup && a.compile},
        {"hacks", a.hacks == HackPolicy::fail ? "fail" : "flag"},
        {"timing",
         {{"warmup", a.timing.warmup},
          {"trials", a.timing.trials},
          {"min_trials", a.timing.min_trials},
          {"budget_s", a.timing.budget_s}}},
        {"cupti", s.runner.profiler.empty() ? ordered_json(nullptr)
                                            : ordered_json(s.runner.profiler.string())},
        {"cupti_why", s.cupti_why.empty() ? ordered_json(nullptr) : ordered_json(s.cupti_why)},
        {"extension_cache",
         s.cache_root.empty() ? ordered_json(nullptr) : ordered_json(s.cache_root.string())},
        {"hf_home", s.runner.hf_home.empty() ? ordered_json(nullptr)
                                             : ordered_json(s.runner.hf_home.string())},
        {"bytecode_cache", s.bytecode},
        {"sandbox", s.sandbox.mode},
        {"sandbox_limits", s.sandbox.limits_how},
        {"memory_limit_bytes", s.sandbox.settings.memory_limit_bytes}}}};
  write_json_atomically(done.run_dir / "summary.json", summary);
  done.summary = std::move(summary);
  return done;
}

}  // namespace kjudge::kernelbench
