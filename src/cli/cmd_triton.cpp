// kjudge triton {list, show, eval}: a look at a TritonBench data folder, and judging Triton
// operators against its references. A command of its own rather than `problems list`: a
// TritonBench operator has no build or test command and its reference is Python, so forcing it
// into the ComputeEval Problem model would invent fields.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/step_options.h"
#include "cli/triton_eval_args.h"
#include "core/input_error.h"
#include "core/time_stamp.h"
#include "perf/benchmarker.h"
#include "run/cloexec_file.h"
#include "triton/candidates/llm_generated.h"
#include "triton/candidates/solutions.h"
#include "triton/data/tritonbench.h"
#include "triton/judge/codebleu.h"
#include "triton/judge/defects.h"
#include "triton/judge/eval.h"
#include "triton/judge/journal.h"
#include "triton/run_json.h"
#include "triton/runner/python_bytecode.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;

struct TritonArgs {
  std::string dir;
  std::string op;
  std::string channel;  // "", "G" or "T"
  int difficulty = 0;   // 0: all
  bool json = false;
  bool code = false;
};

std::optional<triton::TritonChannel> channel_filter(const std::string& c) {
  if (c.empty()) return std::nullopt;
  return c == "G" ? triton::TritonChannel::G : triton::TritonChannel::T;
}

size_t line_count(const std::string& s) {
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')) +
         (!s.empty() && s.back() != '\n');
}

// Versioned per element, like `problems list --json`: the list stays a bare array. `defect` is
// the known test defect `triton eval` applies to the operator (triton/judge/defects.h), or null.
nlohmann::ordered_json brief_json(const triton::TritonOperator& op) {
  const triton::TritonDefect* d = triton::find_triton_defect(triton::triton_defects(), op);
  return {{"schema_version", 1},
          {"kind", "kjudge-triton-operator"},
          {"channel", triton::channel_name(op.channel)},
          {"name", op.name},
          {"file", op.file},
          {"difficulty", op.difficulty},
          {"reference_lines", line_count(op.reference_code)},
          {"test_lines", line_count(op.test_code)},
          {"defect", d ? triton::triton_defect_json(*d) : nlohmann::ordered_json(nullptr)}};
}

void cmd_list(const TritonArgs& a, int& rc) {
  triton::TritonBench bench = triton::load_tritonbench(a.dir);
  auto channel = channel_filter(a.channel);
  std::vector<const triton::TritonOperator*> shown;
  for (const triton::TritonOperator& op : bench.operators)
    if ((!channel || op.channel == *channel) &&
        (a.difficulty == 0 || op.difficulty == a.difficulty))
      shown.push_back(&op);
  if (a.json) {
    nlohmann::ordered_json arr = nlohmann::ordered_json::array();
    for (const triton::TritonOperator* op : shown) arr.push_back(brief_json(*op));
    fmt::print("{}\n", arr.dump(2));
  } else {
    fmt::print("{:<2} {:<40} {:<5} {:>5} {:>5}  {}\n", "CH", "OPERATOR", "LEVEL", "REF", "TEST",
               "TEST DEFECT");
    std::size_t defects = 0;
    for (const triton::TritonOperator* op : shown) {
      const triton::TritonDefect* d = triton::find_triton_defect(triton::triton_defects(), *op);
      defects += d ? 1 : 0;
      fmt::print("{:<2} {:<40} {:<5} {:>5} {:>5}  {}\n", triton::channel_name(op->channel),
                 op->name, op->difficulty, line_count(op->reference_code),
                 line_count(op->test_code), d ? triton::triton_defect_brief(*d) : "");
    }
    fmt::print("{} operators", shown.size());
    if (defects > 0)
      fmt::print(", {} with a known test defect (kjudge triton show OPERATOR says which)", defects);
    fmt::print("\n");
  }
  rc = exit_code::ok;
}

void cmd_show(const TritonArgs& a, int& rc) {
  triton::TritonBench bench = triton::load_tritonbench(a.dir);
  const triton::TritonOperator* op = bench.find(a.op, channel_filter(a.channel));
  if (!op) throw InputError(a.dir, 0, "operator", "no operator '" + a.op + "' in this folder");
  if (a.json) {
    nlohmann::ordered_json j = brief_json(*op);
    j["simple_instruction"] = op->simple_instruction;
    j["complex_instruction"] = op->complex_instruction;
    j["reference_code"] = op->reference_code;
    j["test_code"] = op->test_code;
    j["statistics"] = op->statistics;
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("{}/{}  ({}, difficulty {})\n", triton::channel_name(op->channel), op->name,
               op->file, op->difficulty);
    if (const triton::TritonDefect* d = triton::find_triton_defect(triton::triton_defects(), *op))
      fmt::print(
          "\nknown test defect: {}\n  {}\n  (kjudge triton eval applies it; --keep-defective "
          "judges the test as it stands)\n",
          triton::triton_defect_brief(*d), d->reason);
    fmt::print("\n--- simple instruction ---\n{}\n", op->simple_instruction);
    fmt::print("\n--- complex instruction ---\n{}\n", op->complex_instruction);
    if (a.code) {
      fmt::print("\n--- reference code ---\n{}\n", op->reference_code);
      fmt::print("\n--- test code ---\n{}\n", op->test_code);
    } else {
      fmt::print("\nreference code: {} lines, test code: {} lines (--code prints them)\n",
                 line_count(op->reference_code), line_count(op->test_code));
    }
  }
  rc = exit_code::ok;
}

// The jobs the options select: every operator's reference (--self), the solutions file's
// candidates, or an LLM_generated file's, filtered by channel, operator and difficulty.
// `llm` receives what the LLM_generated file held besides candidates (unmatched lines).
std::vector<triton::TritonJob> select_jobs(const TritonEvalArgs& a,
                                           const triton::TritonBench& bench,
                                           triton::LlmGeneratedFile* llm) {
  auto channel = channel_filter(a.channel);
  std::vector<const triton::TritonOperator*> named;
  for (const std::string& name : a.operators) {
    const triton::TritonOperator* op = bench.find(name, channel);
    if (!op) throw InputError(a.dir, 0, "--operator", "no operator '" + name + "' in this folder");
    named.push_back(op);
  }
  auto wanted = [&](const triton::TritonOperator& op) {
    return (!channel || op.channel == *channel) &&
           (a.difficulty == 0 || op.difficulty == a.difficulty) &&
           (named.empty() || std::find(named.begin(), named.end(), &op) != named.end());
  };
  std::vector<triton::TritonJob> jobs;
  if (a.self) {
    for (const triton::TritonOperator& op : bench.operators)
      if (wanted(op)) jobs.push_back({&op, op.reference_code, 0, "self"});
  } else if (!a.llm_generated.empty()) {
    *llm = triton::read_llm_generated(a.llm_generated, bench);
    for (triton::TritonCandidate& c : llm->candidates) {
      const triton::TritonOperator* op = bench.find(c.file, c.channel);
      // read_llm_generated matched the line to an operator of this folder: never null.
      if (op && wanted(*op)) jobs.push_back({op, c.code, c.sample, c.source});
    }
  } else {
    for (triton::TritonSolution& s : triton::read_triton_solutions(a.solutions, bench))
      if (wanted(*s.op)) jobs.push_back({s.op, std::move(s.code), s.sample, s.origin});
  }
  if (a.limit > 0 && jobs.size() > static_cast<std::size_t>(a.limit)) jobs.resize(a.limit);
  return jobs;
}

// CodeBLEU of the judged G candidates against their references, or why it is unavailable.
nlohmann::ordered_json codebleu_json(const TritonEvalArgs& a,
                                     const std::vector<triton::TritonJob>& jobs,
                                     const triton::TritonBench& bench) {
  std::vector<triton::TritonCandidate> candidates;
  for (const triton::TritonJob& j : jobs) {
    triton::TritonCandidate c;
    c.channel = j.op->channel;
    c.file = j.op->file;
    c.operator_name = j.op->name;
    c.sample = j.sample;
    c.code = j.code;
    candidates.push_back(std::move(c));
  }
  triton::CodeBleuOptions o;
  o.python = a.codebleu_python.empty() ? a.python : a.codebleu_python;
  const std::vector<triton::CodeBleuPair> pairs = triton::codebleu_pairs(candidates, bench);
  const triton::CodeBleuResult r = triton::codebleu_score(pairs, o);
  if (!r.available) return {{"available", false}, {"reason", r.reason}, {"pairs", pairs.size()}};
  return {{"available", true},
          {"pairs", r.pairs},
          {"codebleu", r.codebleu},
          {"ngram_match", r.ngram_match},
          {"weighted_ngram_match", r.weighted_ngram_match},
          {"syntax_match", r.syntax_match},
          {"dataflow_match", r.dataflow_match},
          {"package_version", r.package_version},
          {"python", o.python}};
}

std::string percent(const nlohmann::ordered_json& v) {
  return v.is_null() ? "-" : fmt::format("{:.1f}%", 100 * v.get<double>());
}

void print_table(const nlohmann::ordered_json& summary) {
  fmt::print("{:<8} {:>6} {:>8} {:>8} {:>8} {:>8} {:>9} {:>10}\n", "GROUP", "JUDGED", "CALL",
             "EXEC", "REF-FAIL", "REF-BAD", "JUDGE-ERR", "SPEEDUP");
  auto row = [](const std::string& name, const nlohmann::ordered_json& t) {
    std::string sp = t["speedup"].is_null()
                         ? "-"
                         : fmt::format("{:.3f} ({})", t["speedup"]["geomean"].get<double>(),
                                       t["speedup"]["n"].get<std::size_t>());
    fmt::print("{:<8} {:>6} {:>8} {:>8} {:>8} {:>8} {:>9} {:>10}\n", name,
               t["judged"].get<std::size_t>(), percent(t["call_accuracy"]),
               percent(t["exec_accuracy"]), t["reference_failed"].get<std::size_t>(),
               t["reference_unstable"].get<std::size_t>() + t["no_output"].get<std::size_t>(),
               t["judge_errors"].get<std::size_t>(), sp);
  };
  for (auto it = summary["by_channel"].begin(); it != summary["by_channel"].end(); ++it)
    row(it.key(), it.value());
  for (auto it = summary["by_difficulty"].begin(); it != summary["by_difficulty"].end(); ++it)
    row(it.key(), it.value());
  row("all", summary["totals"]);
  for (const auto& f : summary["reference_failures"])
    fmt::print("reference failed: {}: {}\n", f["operator"].get<std::string>(),
               f["detail"].get<std::string>().substr(0, 200));
  for (const auto& f : summary["reference_unstable"])
    fmt::print("reference unstable: {}: {}\n", f["operator"].get<std::string>(),
               f["detail"].get<std::string>().substr(0, 200));
  for (const auto& f : summary["reference_no_output"])
    fmt::print("reference has no output: {}: {}\n", f["operator"].get<std::string>(),
               f["detail"].get<std::string>().substr(0, 200));
  for (const auto& f : summary["excluded"])
    fmt::print("excluded (its test is broken): {}: {}\n", f["operator"].get<std::string>(),
               f["reason"].get<std::string>().substr(0, 200));
  for (const auto& f : summary["defects_applied"]) {
    std::string entries;
    for (const auto& e : f["entries"])
      entries += (entries.empty() ? " " : ", ") + e.get<std::string>();
    if (f.contains("entry")) {  // entry_args: the entry and the arguments kept
      entries += " " + f["entry"].get<std::string>();
      for (std::size_t i = 0; i < f["args"].size(); ++i)
        entries += fmt::format("{}args[{}]", i == 0 ? " " : ", ", f["args"][i].get<int>());
    }
    fmt::print("test defect: {}: {}{}\n", f["operator"].get<std::string>(),
               f["action"].get<std::string>(), entries);
  }
  // The basis of each timed operator's GPU efficiency (docs/triton.md, "GPU efficiency").
  for (auto it = summary["work"].begin(); it != summary["work"].end(); ++it) {
    const auto& w = it.value();
    std::string what = fmt::format("{} bytes", w["bytes"].get<std::int64_t>());
    if (!w["flops"].is_null()) what += fmt::format(", {:.4g} FLOPs", w["flops"].get<double>());
    const std::string note = w["note"].get<std::string>();
    fmt::print("work: {}: {}, {}{}\n", it.key(), w["basis"].get<std::string>(), what,
               note.empty() ? "" : " (" + note.substr(0, 160) + ")");
  }
  if (summary.contains("codebleu"))
    fmt::print("codebleu: {}\n",
               summary["codebleu"]["available"].get<bool>()
                   ? fmt::format("{:.4f} ({} pairs)", summary["codebleu"]["codebleu"].get<double>(),
                                 summary["codebleu"]["pairs"].get<std::size_t>())
                   : "unavailable: " + summary["codebleu"]["reason"].get<std::string>());
  fmt::print(
      "call = ran without an exception; exec = outputs match the reference's; ref-bad = the "
      "reference disagrees with itself or has no output; speedup = geometric mean (count); "
      "excluded operators (a broken test) are in no column\n");
}

}  // namespace

std::string TritonEvalArgs::default_triton_python() {
  const char* env = std::getenv("KJUDGE_TRITON_PYTHON");
  return env && *env ? env : "python3";
}

namespace {

// The options that make the run's identity (triton/run_json.h).
triton::RunIdentityOptions identity_options(const TritonEvalArgs& a) {
  triton::RunIdentityOptions o;
  o.dir = a.dir;
  o.self = a.self;
  o.solutions = a.solutions;
  o.llm_generated = a.llm_generated;
  o.channel = a.channel;
  o.operators = a.operators;
  o.difficulty = a.difficulty;
  o.limit = a.limit;
  o.keep_defective = a.keep_defective;
  o.no_reference_check = a.no_reference_check;
  o.seed = a.seed;
  o.speedup = a.speedup;
  o.rounds = a.rounds;
  o.warmup_rounds = a.warmup_rounds;
  o.timing = a.timing;
  o.cupti = a.cupti;
  return o;
}

}  // namespace

void run_triton_eval(const TritonEvalArgs& a, int& rc) {
  if (int(a.self) + int(!a.solutions.empty()) + int(!a.llm_generated.empty()) != 1) {
    fmt::print(stderr,
               "kjudge: give exactly one of --solutions FILE, --llm-generated FILE and --self\n");
    rc = exit_code::usage;
    return;
  }
  triton::TritonBench bench = triton::load_tritonbench(a.dir);
  triton::LlmGeneratedFile llm;
  std::vector<triton::TritonJob> jobs = select_jobs(a, bench, &llm);
  if (jobs.empty()) {
    fmt::print(stderr, "kjudge: nothing to judge (no operator matches the filters)\n");
    rc = exit_code::usage;
    return;
  }
  if (a.cupti && !a.speedup) {
    fmt::print(stderr, "kjudge: --cupti watches the timing processes: it needs --speedup\n");
    rc = exit_code::usage;
    return;
  }
  triton::TritonEvalOptions opt;
  try {
    opt.runner.python = triton::probe_python(a.python);
    opt.runner.script = triton::locate_triton_runner(a.runner);
  } catch (const std::runtime_error& e) {
    fmt::print(stderr, "kjudge: {}\n", e.what());
    rc = exit_code::environment;
    return;
  }
  const fs::path run_dir =
      a.out.empty() ? fs::path("kjudge-runs") / ("triton-" + run_stamp(std::time(nullptr), false))
                    : fs::path(a.out);
  // The run directory's journals (triton/judge/journal.h): each candidate's line is written as
  // soon as it is judged. One left by an earlier run is finished with --resume, never mixed
  // with another run's: run.json says what that run judges.
  const fs::path results_path = run_dir / "results.jsonl";
  const bool resuming = a.resume && fs::exists(results_path);
  // The CUPTI profiler: asked for (--cupti) it must be there; by default a timed run uses it
  // where its library is found, except when finishing a run that was started without it (a
  // library named by --profiler is asked for too).
  std::string cupti_why;
  if (a.speedup && !a.no_cupti) {
    const fs::path lib = a.profiler.empty() ? locate_profiler() : fs::path(a.profiler);
    std::error_code ec;
    const bool found = !lib.empty() && fs::is_regular_file(lib, ec);
    const bool resuming_without =
        !a.cupti && a.profiler.empty() && resuming && !triton::triton_run_used_cupti(run_dir);
    if ((a.cupti || !a.profiler.empty()) && !found) {
      fmt::print(stderr,
                 "kjudge: {} the profiler library, libkjudge_profiler.so (built beside kjudge "
                 "where CUPTI is installed; or set KJUDGE_PROFILER){}\n",
                 a.cupti ? "--cupti needs" : "--profiler names",
                 lib.empty() ? "" : ": " + lib.string() + " is no file");
      rc = exit_code::environment;
      return;
    }
    if (resuming_without) {
      cupti_why = "the run being resumed was started without it";
    } else if (!found) {
      cupti_why = "the profiler library (libkjudge_profiler.so) was not found" +
                  (lib.empty() ? std::string() : " at " + lib.string()) +
                  " (built only where CUPTI is installed; set KJUDGE_PROFILER)";
      if (!a.quiet)
        fmt::print(stderr,
                   "kjudge: note: timed without the CUPTI profiler: {}; --cupti requires it\n",
                   cupti_why);
    } else {
      opt.profiler = lib;
    }
  } else if (a.speedup) {
    cupti_why = "turned off (--no-cupti)";
  }
  TritonEvalArgs args = a;
  args.cupti = !opt.profiler.empty();
  // Compiled once here, outside the sandbox, with no operator code; a cache that cannot be made
  // costs time, never the run.
  nlohmann::ordered_json bytecode = nullptr;
  const fs::path bytecode_root = a.bytecode_cache.empty() ? triton::default_python_bytecode_root()
                                                          : fs::path(a.bytecode_cache);
  if (!a.no_bytecode_cache && !bytecode_root.empty()) {
    try {
      const triton::PythonBytecode bc = triton::prepare_python_bytecode(
          opt.runner.python, bytecode_root, triton::kRunnerPackages);
      opt.runner.python.bytecode_cache = bc.dir;
      bytecode = {{"dir", bc.dir.string()},
                  {"compiled", bc.compiled},
                  {"missing", bc.missing},
                  {"failed", bc.failed}};
    } catch (const std::runtime_error& e) {
      fmt::print(stderr, "kjudge: warning: no bytecode cache, each run compiles torch: {}\n",
                 e.what());
    }
  }
  int steps_rc = 0;
  std::optional<ResolvedSteps> steps = resolve_step_options(a.steps, a.log_cap, &steps_rc);
  if (!steps) {
    rc = steps_rc;
    return;
  }
  opt.runner.step = steps->settings;
  opt.runner.machine = probe_machine();
  opt.runner.timeout_s = a.timeout_s;
  opt.runner.gpu = a.gpu;
  opt.seed = a.seed;
  opt.speedup = a.speedup;
  opt.timing = a.timing;
  opt.rounds = a.rounds;
  opt.warmup_rounds = a.warmup_rounds;
  opt.check_references = !a.no_reference_check;
  if (a.keep_defective) opt.defects.clear();
  opt.prestart = a.prestart;
  if (!a.peaks.empty()) opt.peaks = triton::read_gpu_peaks(a.peaks);
  opt.workers = a.workers;
  opt.keep_workspaces = a.keep_workspaces;
  const nlohmann::ordered_json identity = triton::triton_run_identity(identity_options(args), jobs);
  if (fs::exists(results_path) && !a.resume)
    throw InputError(results_path.string(), 0, "",
                     "holds an earlier run's results; pass --resume to finish that run, or "
                     "choose another --out");
  if (resuming) triton::check_triton_run_identity(run_dir, identity);
  fs::create_directories(run_dir);
  triton::write_triton_run_json(run_dir, identity, resuming);
  triton::TritonJournal journal(run_dir, jobs);
  const std::vector<triton::TritonJob> todo = journal.todo(jobs);
  if (resuming) {
    // What a killed run left in flight is of no use now.
    std::error_code ec;
    if (!a.keep_workspaces) fs::remove_all(run_dir / "work", ec);
    if (!a.quiet)
      fmt::print(stderr, "kjudge: resuming {}: {} of {} candidates already judged\n",
                 run_dir.string(), journal.earlier(), jobs.size());
  }
  opt.on_result = [&journal](const triton::TritonJobResult& r) { journal.append(r); };
  opt.on_reference =
      [&journal](const triton::TritonOperator& op, const triton::TritonRunOutcome& ref,
                 const triton::TritonReferenceCheck& check, const triton::TritonDefect* defect) {
        journal.append_reference(op, ref, check, defect);
      };
  fs::create_directories(run_dir / "work");
  opt.work_dir = fs::absolute(run_dir / "work");
  // Progress goes to stderr, so it stays on beside --json (a long timed run that is cut off
  // otherwise leaves nothing that says how far it got).
  if (!a.quiet) opt.progress = [](const std::string& line) { fmt::print(stderr, "{}\n", line); };

  nlohmann::ordered_json info = {
      {"data_dir", a.dir},
      {"solutions", a.self                     ? "self"
                    : !a.llm_generated.empty() ? a.llm_generated
                                               : a.solutions},
      {"run_dir", run_dir.string()},
      {"started_at", iso8601_utc(std::time(nullptr))},
      {"jobs", jobs.size()},
      {"seed", a.seed},
      {"speedup", a.speedup},
      {"options",
       {{"python", opt.runner.python.executable},
        {"python_version", opt.runner.python.version},
        {"runner", opt.runner.script.string()},
        {"timeout_s", a.timeout_s},
        {"workers", a.workers},
        {"gpu", a.gpu},
        {"reference_check", !a.no_reference_check},
        {"keep_defective", a.keep_defective},
        {"prestart", a.prestart},
        {"cupti", opt.profiler.empty() ? nlohmann::ordered_json(nullptr)
                                       : nlohmann::ordered_json(opt.profiler.string())},
        {"cupti_why",
         cupti_why.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(cupti_why)},
        {"bytecode_cache", bytecode},
        {"peaks",
         opt.peaks ? nlohmann::ordered_json{{"file", a.peaks},
                                            {"gpu", opt.peaks->gpu},
                                            {"memory_bandwidth_bytes_per_s",
                                             opt.peaks->memory_bandwidth_bytes_per_s},
                                            {"matmul_flops_per_s", opt.peaks->matmul_flops_per_s}}
                   : nlohmann::ordered_json(nullptr)},
        {"sandbox", steps->mode},
        {"memory_limit_bytes", steps->settings.memory_limit_bytes},
        {"sandbox_limits", steps->limits_how},
        {"timing",
         {{"warmup", a.timing.warmup},
          {"reps", a.timing.reps},
          {"min_reps", a.timing.min_reps},
          {"max_ms_per_site", a.timing.max_ms_per_site},
          {"flush_bytes", a.timing.flush_bytes},
          {"rounds", a.rounds},
          {"warmup_rounds", a.warmup_rounds}}}}}};
  if (!a.llm_generated.empty()) {
    // What could not become a candidate is listed, never dropped silently.
    nlohmann::ordered_json unmatched = nlohmann::ordered_json::array();
    for (const triton::UnmatchedLine& u : llm.unmatched)
      unmatched.push_back(
          {{"line", u.line}, {"reason", u.reason}, {"instruction_start", u.instruction_start}});
    nlohmann::ordered_json no_code = nlohmann::ordered_json::array();
    for (const triton::TritonCandidate& c : llm.candidates)
      if (!c.code_error.empty())
        no_code.push_back(
            {{"source", c.source}, {"operator", c.operator_name}, {"why", c.code_error}});
    info["llm_generated"] = {{"file", a.llm_generated},
                             {"candidates", llm.candidates.size()},
                             {"unmatched", std::move(unmatched)},
                             {"without_code", std::move(no_code)}};
  }

  if (resuming) info["resumed"] = {{"earlier_results", journal.earlier()}};

  // results.jsonl is written as the candidates are judged; references.jsonl is put in the
  // jobs' order at the end, and the summary covers the earlier runs' results too.
  triton::TritonEvalResult res = triton::evaluate_triton(todo, opt);
  journal.finish_references(jobs);
  journal.add_earlier(res, opt.defects);
  nlohmann::ordered_json summary = triton::triton_summary_json(res, info);
  if (a.codebleu) summary["codebleu"] = codebleu_json(a, jobs, bench);
  write_file_cloexec(run_dir / "summary.json", summary.dump(2) + "\n");
  if (!opt.keep_workspaces) {
    std::error_code ec;
    fs::remove(run_dir / "work", ec);  // empty by now; kept when a workspace is still there
  }
  if (a.json) {
    fmt::print("{}\n", summary.dump(2));
  } else if (!a.quiet) {
    print_table(summary);
    fmt::print("results: {}\n", results_path.string());
  }
  rc = res.scores.all.judge_errors > 0 ? exit_code::judge_error : exit_code::ok;
}

void add_triton_commands(CLI::App& app, int& rc) {
  auto* triton = app.add_subcommand("triton", "Inspect a TritonBench data folder (docs/triton.md)");
  triton->require_subcommand(1);

  auto list = std::make_shared<TritonArgs>();
  auto* l = triton->add_subcommand("list", "List the operators of G and T");
  l->add_option("DIR", list->dir, "TritonBench data folder")->required();
  l->add_option("--channel", list->channel, "G or T")->check(CLI::IsMember({"G", "T"}));
  l->add_option("--difficulty", list->difficulty, "1..5")->check(CLI::Range(1, 5));
  l->add_flag("--json", list->json, "JSON array on stdout");
  l->callback([list, &rc] { cmd_list(*list, rc); });

  auto show = std::make_shared<TritonArgs>();
  auto* s = triton->add_subcommand("show", "Show one operator");
  s->add_option("DIR", show->dir, "TritonBench data folder")->required();
  s->add_option("OPERATOR", show->op, "name or file, e.g. add_example or torch.div")->required();
  s->add_option("--channel", show->channel, "G or T")->check(CLI::IsMember({"G", "T"}));
  s->add_flag("--json", show->json, "The operator as JSON, code and statistics included");
  s->add_flag("--code", show->code, "Also print the reference and test code");
  s->callback([show, &rc] { cmd_show(*show, rc); });

  auto ev = std::make_shared<TritonEvalArgs>();
  auto* e = triton->add_subcommand(
      "eval", "Judge Triton operators: call and execution accuracy, speedup (docs/triton.md)");
  e->add_option("DIR", ev->dir, "TritonBench data folder")->required();
  e->add_option("--solutions", ev->solutions,
                "JSON lines {operator|file, channel, code, sample}: the candidates");
  e->add_option("--llm-generated", ev->llm_generated,
                "JSON lines {instruction, predict, label} (TritonBench's LLM_generated): the "
                "candidates");
  e->add_flag("--self", ev->self, "Judge every selected reference as its own candidate");
  e->add_flag("--codebleu", ev->codebleu,
              "Also CodeBLEU of the G candidates (needs the codebleu package; else unavailable)");
  e->add_option("--codebleu-python", ev->codebleu_python,
                "The interpreter with the codebleu package (default: --python)");
  e->add_flag("--no-reference-check", ev->no_reference_check,
              "Do not run each reference a second time to see whether it agrees with itself");
  e->add_flag("--keep-defective", ev->keep_defective,
              "Ignore the table of operators whose own tests are broken (by default those are "
              "excluded, have entries left uncompared, or get zero-filled torch.empty; "
              "docs/triton.md)");
  e->add_option("--channel", ev->channel, "G or T")->check(CLI::IsMember({"G", "T"}));
  e->add_option("--operator", ev->operators, "Only this operator (repeatable)");
  e->add_option("--difficulty", ev->difficulty, "Only this difficulty, 1..5")
      ->check(CLI::Range(1, 5));
  e->add_option("--limit", ev->limit, "At most N candidates")->check(CLI::PositiveNumber);
  e->add_flag("--speedup", ev->speedup,
              "Also time the reference and every correct candidate, one at a time on the GPU");
  auto* cupti = e->add_flag(
      "--cupti", ev->cupti,
      "With --speedup: require the judge's CUPTI profiler in every timing process (it is used "
      "by default where its library is found), which flags GPU work the events did not time "
      "(cupti_undercount, cupti_outside) or a record that cannot be trusted (cupti_record); "
      "exit 3 without it; docs/triton.md");
  e->add_flag("--no-cupti", ev->no_cupti,
              "With --speedup: time without the CUPTI profiler (CUDA events and the runtime "
              "watch only)")
      ->excludes(cupti);
  e->add_option("--profiler", ev->profiler,
                "The CUPTI profiler library (default: $KJUDGE_PROFILER, or "
                "libkjudge_profiler.so beside kjudge; KJUDGE_PROFILER=none: not used)");
  e->add_option("--out", ev->out,
                "Run directory (default kjudge-runs/triton-<time>): results.jsonl gets each "
                "candidate's line as soon as it is judged (in completion order), "
                "references.jsonl, summary.json and run.json");
  e->add_flag("--resume", ev->resume,
              "Finish the run in --out: judge only the candidates its results.jsonl lacks (the "
              "options that decide a verdict must be the ones it was started with)");
  e->add_flag("--json", ev->json, "summary.json on stdout instead of the table");
  e->add_option(
      "--python", ev->python,
      "The interpreter with torch and triton (default $KJUDGE_TRITON_PYTHON, else python3 "
      "from PATH)");
  e->add_option("--runner", ev->runner,
                "kjudge_triton_runner.py (default: python/ beside kjudge or one folder up)");
  e->add_option("--timeout", ev->timeout_s, "Wall-clock limit of one run in seconds (default 180)")
      ->check(CLI::PositiveNumber);
  e->add_option("--seed", ev->seed, "The seed every run starts from (default 20251122)");
  e->add_option("--workers", ev->workers, "Test runs at once (default 4)")
      ->check(CLI::Range(1, 256));
  e->add_option("--gpu", ev->gpu, "CUDA_VISIBLE_DEVICES for every run (default: not set)");
  e->add_option("--warmup", ev->timing.warmup, "Untimed calls per call site (default 3)")
      ->check(CLI::Range(0, 1000));
  e->add_option("--reps", ev->timing.reps, "Timed calls per call site at most (default 30)")
      ->check(CLI::Range(1, 100000));
  e->add_option("--max-ms-per-call", ev->timing.max_ms_per_site,
                "Wall budget of one call site's timed calls (default 1000; 5 are always made)")
      ->check(CLI::PositiveNumber);
  e->add_option("--rounds", ev->rounds,
                "Timed rounds per candidate, one reference and one candidate process each, "
                "alternating which goes first (default 4)")
      ->check(CLI::Range(1, 1000));
  e->add_option("--warmup-rounds", ev->warmup_rounds,
                "Rounds run before the timed ones and discarded (default 1)")
      ->check(CLI::Range(0, 1000));
  e->add_option("--bytecode-cache", ev->bytecode_cache,
                "Where the judge compiles torch, triton and numpy once for every run (default "
                "~/.cache/kjudge/python-bytecode)");
  e->add_flag("--no-bytecode-cache", ev->no_bytecode_cache,
              "Let every run compile what it imports, as a read-only venv without bytecode "
              "makes it");
  e->add_flag("--prestart", ev->prestart,
              "Start each timing process while the one before it runs: it imports torch and "
              "triton meanwhile and waits to touch the GPU (faster sweeps; not yet shown to "
              "leave self-speedups at 1.00, docs/triton.md)");
  e->add_option("--peaks", ev->peaks,
                "JSON of python/kjudge_gpu_peaks.py measured on this GPU: with --speedup, each "
                "timed candidate's achieved bytes/s and FLOP/s over the peaks (gpu_efficiency)");
  e->add_flag("--keep-workspaces", ev->keep_workspaces, "Keep every run's folder under RUN/work");
  add_step_options(e, ev->steps);
  e->callback([ev, &rc] { run_triton_eval(*ev, rc); });
}

}  // namespace kjudge
