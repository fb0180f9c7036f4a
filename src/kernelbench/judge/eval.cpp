// A whole `kjudge kernelbench eval` run.
// Declared, and explained, in kernelbench/judge/eval.h.
#include "kernelbench/judge/eval.h"

#include <fmt/format.h>

#include <atomic>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <mutex>
#include <set>
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

std::string fingerprint(const std::vector<Solution>& sols) {
  ItemFingerprint items("\n");
  for (const Solution& s : sols)
    items.add(s.key(), sha256_hex(s.code) + " " + sha256_hex(s.problem->code));
  return items.hex();
}

ordered_json identity(const EvalOptions& a, const std::vector<Solution>& sols, std::uint64_t seed) {
  std::vector<std::string> problems = a.problems;
  std::sort(problems.begin(), problems.end());
  return {{"data_dir", absolute_path(a.dir)},
          {"solutions", a.self ? "self" : absolute_path(a.solutions)},
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
          {"jobs", sols.size()},
          {"jobs_fingerprint", fingerprint(sols)}};
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

std::vector<Solution> select(const EvalOptions& a, const Dataset& d) {
  std::vector<Solution> sols = a.self ? self_solutions(d) : read_solutions(a.solutions, d, a.level);
  if (!a.problems.empty()) {
    std::vector<const Problem*> wanted;
    for (const std::string& text : a.problems) {
      const Problem* p = nullptr;
      if (auto ref = parse_problem_ref(text)) {
        p = ref->file.empty() ? d.find(ref->level, ref->id) : d.find_file(ref->level, ref->file);
      } else if (a.level > 0 && !text.empty() &&
                 text.find_first_not_of("0123456789") == std::string::npos && text.size() < 7) {
        p = d.find(a.level, std::stoi(text));
      } else if (a.level > 0) {
        p = d.find_file(a.level, text);
      }
      if (!p)
        throw InputError("--problem", 0, text,
                         "names no problem of the data folder (give L1/19, level1/19_ReLU.py, or a "
                         "number with --level)");
      wanted.push_back(p);
    }
    std::erase_if(sols, [&](const Solution& s) {
      return std::find(wanted.begin(), wanted.end(), s.problem) == wanted.end();
    });
  }
  if (a.level > 0)
    std::erase_if(sols, [&](const Solution& s) { return s.problem->level != a.level; });
  if (a.limit > 0 && sols.size() > static_cast<std::size_t>(a.limit))
    sols.resize(static_cast<std::size_t>(a.limit));
  if (sols.empty())
    throw InputError(a.self ? a.dir : a.solutions, 0, "",
                     "no solution to judge (after --level, --problem and --limit)");
  return sols;
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

std::filesystem::path hf_cache(const std::string& given, std::string* why) {
  std::string dir = given;
  if (dir.empty())
    if (const char* e = std::getenv("HF_HOME"); e && *e) dir = e;
  std::error_code ec;
  if (dir.empty()) {
    if (why)
      *why =
          "level 4 builds Hugging Face models with from_pretrained, which needs a local model "
          "cache: set HF_HOME (or --hf-home) to one (it runs in offline mode; no hub is "
          "reached)";
    return {};
  }
  if (!fs::is_directory(dir, ec)) {
    if (why)
      *why = "level 4 needs a local Hugging Face cache, and HF_HOME=" + dir + " is no folder";
    return {};
  }
  return fs::absolute(dir);
}

std::uint64_t trial_seed(std::uint64_t run_seed, const std::string& problem_key, int i) {
  const std::string h =
      sha256_hex(fmt::format("{:016x}/kjudge-kernelbench/{}/trial/{}", run_seed, problem_key, i));
  return std::strtoull(h.substr(0, 15).c_str(), nullptr, 16);
}

EvalDone run_eval(const EvalOptions& a, const EvalSandbox& sandbox, const Note& note,
                  EvalStop* stop) {
  EvalDone done;
  auto stopped = [&](EvalStop::Kind kind, const std::string& message) {
    if (stop) *stop = {kind, message};
    return done;
  };
  const Dataset dataset = load_kernelbench(a.dir, a.level);
  const std::vector<Solution> sols = select(a, dataset);
  const fs::path run_dir =
      a.out.empty()
          ? fs::path("kjudge-runs") / ("kernelbench-" + run_stamp(std::time(nullptr), false))
          : fs::path(a.out);
  done.run_dir = run_dir;
  done.results = run_dir / "results.jsonl";
  if (fs::exists(done.results) && !a.resume)
    throw InputError(done.results.string(), 0, "",
                     "holds an earlier run's results; pass --resume to finish that run, or choose "
                     "another --out");
  const bool resuming = a.resume && fs::exists(done.results);
  ordered_json prev = nullptr;
  std::uint64_t seed = a.seed;
  if (resuming) {
    prev = read_run_json(run_dir);
    // The trials' secret seed of the run being finished, unless this command names one.
    if (seed == 0 && prev["identity"].contains("seed") &&
        prev["identity"]["seed"].is_number_unsigned())
      seed = prev["identity"]["seed"].get<std::uint64_t>();
  }
  if (seed == 0) seed = random_u64() | 1;
  const ordered_json id = identity(a, sols, seed);
  if (resuming)
    check_run_identity(run_dir / "run.json", run_dir, prev["identity"], id, kFields, "identity");

  // The interpreter and the runner.
  Runner runner;
  try {
    runner.python = triton::probe_python(a.python.empty() ? "python3" : a.python);
    runner.script = locate_kernelbench_runner(a.runner);
  } catch (const std::runtime_error& e) {
    return stopped(EvalStop::Kind::environment, e.what());
  }
  std::string cupti_why;
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
      cupti_why = "the profiler library (libkjudge_profiler.so) was not found";
  } else if (a.speedup) {
    cupti_why = "turned off (--no-cupti)";
  }
  ordered_json bytecode = nullptr;
  const fs::path bytecode_root = a.bytecode_cache.empty() ? triton::default_python_bytecode_root()
                                                          : fs::path(a.bytecode_cache);
  if (!a.no_bytecode_cache && !bytecode_root.empty()) {
    try {
      std::vector<std::string> mods = triton::kRunnerPackages;
      for (const Solution& s : sols)
        if (s.problem->needs_hf()) {
          mods.push_back("transformers");
          break;
        }
      const triton::PythonBytecode bc =
          triton::prepare_python_bytecode(runner.python, bytecode_root, mods);
      runner.python.bytecode_cache = bc.dir;
      bytecode = {{"dir", bc.dir.string()},
                  {"compiled", bc.compiled},
                  {"missing", bc.missing},
                  {"failed", bc.failed}};
    } catch (const std::runtime_error& e) {
      note(
          fmt::format("kjudge: warning: no bytecode cache, each run compiles torch: {}", e.what()));
    }
  }
  runner.step = sandbox.settings;
  runner.machine = probe_machine();
  runner.timeout_s = a.timeout_s;
  // A run may wait for every other worker's timed phase, each within its own limit.
  runner.wait_allowance_s = std::max(600.0, 2.0 * a.workers * a.timeout_s);
  runner.gpu = a.gpu;
  runner.max_jobs = std::max(1, runner.machine.cpu_count / std::max(1, a.workers));
  std::string hf_why;
  runner.hf_home = hf_cache(a.hf_home, &hf_why);
  const fs::path cache_root = a.no_cache || a.cache_dir.empty()
                                  ? (a.no_cache ? fs::path() : default_cache_dir())
                                  : fs::path(a.cache_dir);

  fs::create_directories(run_dir);
  write_run_json(run_dir, id, prev);
  Journal journal(run_dir, sols);
  const std::vector<const Solution*> todo = journal.todo(sols);
  if (resuming && !a.quiet)
    note(fmt::format("kjudge: resuming {}: {} of {} solutions already judged", run_dir.string(),
                     journal.earlier().size(), sols.size()));
  fs::create_directories(run_dir / "work");

  GradeOptions gopt;
  gopt.hacks = a.hacks;
  gopt.side_work_ms = a.timing.side_work_ms;
  GpuGate gate(a.gpu >= 0 ? a.gpu : (runner.machine.gpus.empty() ? -1 : 0), a.timeout_s);
  SoloGate solo;
  // Problems whose runs ran out of memory beside others: their later samples run solo at once.
  std::set<std::string> solo_problems;

  std::mutex mu;
  std::vector<Graded> graded(journal.earlier());
  std::atomic<std::size_t> next{0}, finished{0};
  std::atomic<bool> no_torch{false};
  std::string no_torch_detail;
  ordered_json env = nullptr;
  const auto started = std::chrono::steady_clock::now();

  auto judge_one = [&](const Solution& s) -> Result {
    std::vector<Finding> found = static_findings(s.code, s.problem->code);
    if (s.code.find_first_not_of(" \t\r\n") == std::string::npos)
      return not_run(s, Verdict::compile_error, "the solution has no code", found, gopt);
    if (!defines_model_new(s.code))
      return not_run(s, Verdict::compile_error, "the solution defines no ModelNew", found, gopt);
    if (s.problem->needs_hf() && runner.hf_home.empty())
      return not_run(s, Verdict::env_error, "not run (not charged): " + hf_why, found, gopt);
    if (no_torch) {
      std::lock_guard<std::mutex> lock(mu);
      return not_run(s, Verdict::env_error, no_torch_detail, found, gopt);
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
    const fs::path ws =
        cache_root.empty()
            ? run_dir / "work" / fmt::format("L{}-{}-{}", s.problem->level, s.problem->id, s.sample)
            : cache_root / code_hash;
    bool known_solo = false;
    if (a.workers > 1) {
      std::lock_guard<std::mutex> lock(mu);
      known_solo = solo_problems.count(s.problem->key()) > 0;
    }
    auto run_once = [&](bool alone) {
      SoloGate::Hold hold(solo, alone);
      req.alone = alone;
      return run_kernelbench(runner, req, ws, gate);
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
  };

  auto worker = [&] {
    for (;;) {
      const std::size_t i = next++;
      if (i >= todo.size()) return;
      Result r;
      try {
        r = judge_one(*todo[i]);
      } catch (const std::exception& e) {
        r = not_run(*todo[i], Verdict::judge_error, std::string("judge: ") + e.what(), {}, gopt);
      }
      journal.append(r);
      std::lock_guard<std::mutex> lock(mu);
      graded.push_back(r.graded());
      const std::size_t n = ++finished;
      if (!a.quiet) {
        std::string sp;
        if (r.eager)
          sp = fmt::format("  speedup {:.3f} [{:.3f}, {:.3f}]", r.eager->estimate, r.eager->low,
                           r.eager->high);
        if (r.compiled) sp += fmt::format("  vs compile {:.3f}", r.compiled->estimate);
        note(fmt::format("[{}/{}] {} {} {}{}{}", n, todo.size(), r.key(), r.file,
                         verdict_name(r.verdict), sp,
                         r.verdict == Verdict::correct ? "" : "  " + r.detail.substr(0, 160)));
      }
    }
  };
  std::vector<std::thread> pool;
  const int n = std::max(1, std::min<int>(a.workers, static_cast<int>(todo.size())));
  for (int i = 0; i < n; ++i) pool.emplace_back(worker);
  for (std::thread& t : pool) t.join();
  std::error_code ec;
  fs::remove(run_dir / "work", ec);  // empty by now

  ordered_json summary = summarize(graded);
  for (const Graded& g : graded) {
    done.judge_errors = done.judge_errors || g.verdict == Verdict::judge_error;
    done.env_errors = done.env_errors || g.verdict == Verdict::env_error;
  }
  summary["schema_version"] = 1;
  summary["kind"] = "kjudge-kernelbench-summary";
  summary["run"] = {
      {"data_dir", dataset.dir.string()},
      {"solutions", a.self ? "self" : a.solutions},
      {"run_dir", run_dir.string()},
      {"results", done.results.string()},
      {"solutions_selected", sols.size()},
      {"judged_now", todo.size()},
      {"earlier", journal.earlier().size()},
      {"seconds",
       std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()},
      {"env", env},
      {"options",
       {{"python", runner.python.executable},
        {"python_version", runner.python.version},
        {"runner", runner.script.string()},
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
        {"cupti",
         runner.profiler.empty() ? ordered_json(nullptr) : ordered_json(runner.profiler.string())},
        {"cupti_why", cupti_why.empty() ? ordered_json(nullptr) : ordered_json(cupti_why)},
        {"extension_cache",
         cache_root.empty() ? ordered_json(nullptr) : ordered_json(cache_root.string())},
        {"hf_home",
         runner.hf_home.empty() ? ordered_json(nullptr) : ordered_json(runner.hf_home.string())},
        {"bytecode_cache", bytecode},
        {"sandbox", sandbox.mode},
        {"sandbox_limits", sandbox.limits_how},
        {"memory_limit_bytes", sandbox.settings.memory_limit_bytes}}}};
  write_json_atomically(run_dir / "summary.json", summary);
  done.summary = std::move(summary);
  return done;
}

}  // namespace kjudge::kernelbench
