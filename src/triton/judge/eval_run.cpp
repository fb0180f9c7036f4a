// A whole `kjudge triton eval` run: the jobs, the runner set up, the run folder, the judge and
// the summary. Declared, and explained, in triton/judge/eval_run.h.
#include "triton/judge/eval_run.h"

#include <fmt/format.h>
#include <stdlib.h>

#include <algorithm>
#include <ctime>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/exit_codes.h"
#include "core/input_error.h"
#include "core/time_stamp.h"
#include "perf/benchmarker.h"
#include "run/machine.h"
#include "triton/candidates/solutions.h"
#include "triton/judge/codebleu.h"
#include "triton/judge/defects.h"
#include "triton/judge/eval_preflight.h"
#include "triton/judge/journal.h"
#include "triton/judge/run_json.h"
#include "triton/runner/python_bytecode.h"

namespace kjudge::triton {

namespace fs = std::filesystem;

std::optional<TritonChannel> triton_channel_filter(const std::string& c) {
  if (c.empty()) return std::nullopt;
  return c == "G" ? TritonChannel::G : TritonChannel::T;
}

namespace {

// The jobs the options select: every operator's reference (--self), the solutions file's
// candidates, or an LLM_generated file's, filtered by channel, operator and difficulty.
// `llm` receives what the LLM_generated file held besides candidates (unmatched lines).
std::vector<TritonJob> select_jobs(const TritonEvalRunOptions& a, const TritonBench& bench,
                                   LlmGeneratedFile* llm) {
  auto channel = triton_channel_filter(a.channel);
  std::vector<const TritonOperator*> named;
  for (const std::string& name : a.operators) {
    const TritonOperator* op = bench.find(name, channel);
    if (!op) throw InputError(a.dir, 0, "--operator", "no operator '" + name + "' in this folder");
    named.push_back(op);
  }
  auto wanted = [&](const TritonOperator& op) {
    return (!channel || op.channel == *channel) &&
           (a.difficulty == 0 || op.difficulty == a.difficulty) &&
           (named.empty() || std::find(named.begin(), named.end(), &op) != named.end());
  };
  std::vector<TritonJob> jobs;
  if (a.self) {
    for (const TritonOperator& op : bench.operators)
      if (wanted(op)) jobs.push_back({&op, op.reference_code, 0, "self"});
  } else if (!a.llm_generated.empty()) {
    *llm = read_llm_generated(a.llm_generated, bench);
    for (TritonCandidate& c : llm->candidates) {
      const TritonOperator* op = bench.find(c.file, c.channel);
      // read_llm_generated matched the line to an operator of this folder: never null.
      if (op && wanted(*op)) jobs.push_back({op, c.code, c.sample, c.source});
    }
  } else {
    for (TritonSolution& s : read_triton_solutions(a.solutions, bench))
      if (wanted(*s.op)) jobs.push_back({s.op, std::move(s.code), s.sample, s.origin});
  }
  if (a.limit > 0 && jobs.size() > static_cast<std::size_t>(a.limit)) jobs.resize(a.limit);
  return jobs;
}

// CodeBLEU of the judged G candidates against their references, or why it is unavailable.
nlohmann::ordered_json codebleu_json(const TritonEvalRunOptions& a,
                                     const std::vector<TritonJob>& jobs, const TritonBench& bench) {
  std::vector<TritonCandidate> candidates;
  for (const TritonJob& j : jobs) {
    TritonCandidate c;
    c.channel = j.op->channel;
    c.file = j.op->file;
    c.operator_name = j.op->name;
    c.sample = j.sample;
    c.code = j.code;
    candidates.push_back(std::move(c));
  }
  CodeBleuOptions o;
  o.python = a.codebleu_python.empty() ? a.python : a.codebleu_python;
  const std::vector<CodeBleuPair> pairs = codebleu_pairs(candidates, bench);
  const CodeBleuResult r = codebleu_score(pairs, o);
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

// The options that make the run's identity (triton/judge/run_json.h).
RunIdentityOptions identity_options(const TritonEvalRunOptions& a) {
  RunIdentityOptions o;
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

std::optional<TritonEvalStop> prepare_triton_eval(const TritonEvalRunOptions& a, TritonEvalSetup& s,
                                                  const TritonEvalNote& note) {
  using Kind = TritonEvalStop::Kind;
  if (int(a.self) + int(!a.solutions.empty()) + int(!a.llm_generated.empty()) != 1)
    return TritonEvalStop{Kind::usage,
                          "give exactly one of --solutions FILE, --llm-generated FILE and --self"};
  s.bench = load_tritonbench(a.dir);
  s.jobs = select_jobs(a, s.bench, &s.llm);
  if (s.jobs.empty())
    return TritonEvalStop{Kind::usage, "nothing to judge (no operator matches the filters)"};
  if (a.cupti && !a.speedup)
    return TritonEvalStop{Kind::usage, "--cupti watches the timing processes: it needs --speedup"};
  TritonEvalOptions& opt = s.opt;
  try {
    opt.runner.python = probe_python(a.python);
    opt.runner.script = locate_triton_runner(a.runner);
  } catch (const std::runtime_error& e) {
    return TritonEvalStop{Kind::environment, e.what()};
  }
  s.run_dir = a.out.empty()
                  ? fs::path("kjudge-runs") / ("triton-" + run_stamp(std::time(nullptr), false))
                  : fs::path(a.out);
  // The run directory's journals (triton/judge/journal.h): each candidate's line is written as
  // soon as it is judged. One left by an earlier run is finished with --resume, never mixed
  // with another run's: run.json says what that run judges.
  s.results_path = s.run_dir / "results.jsonl";
  s.resuming = a.resume && fs::exists(s.results_path);
  // The CUPTI profiler: asked for (--cupti) it must be there; by default a timed run uses it
  // where its library is found, except when finishing a run that was started without it (a
  // library named by --profiler is asked for too).
  if (a.speedup && !a.no_cupti) {
    const fs::path lib = a.profiler.empty() ? locate_profiler() : fs::path(a.profiler);
    std::error_code ec;
    const bool found = !lib.empty() && fs::is_regular_file(lib, ec);
    const bool resuming_without =
        !a.cupti && a.profiler.empty() && s.resuming && !triton_run_used_cupti(s.run_dir);
    if ((a.cupti || !a.profiler.empty()) && !found)
      return TritonEvalStop{
          Kind::environment,
          fmt::format("{} the profiler library, libkjudge_profiler.so (built beside kjudge "
                      "where CUPTI is installed; or set KJUDGE_PROFILER){}",
                      a.cupti ? "--cupti needs" : "--profiler names",
                      lib.empty() ? "" : ": " + lib.string() + " is no file")};
    if (resuming_without) {
      s.cupti_why = "the run being resumed was started without it";
    } else if (!found) {
      s.cupti_why = "the profiler library (libkjudge_profiler.so) was not found" +
                    (lib.empty() ? std::string() : " at " + lib.string()) +
                    " (built only where CUPTI is installed; set KJUDGE_PROFILER)";
      if (!a.quiet)
        note(fmt::format("kjudge: note: timed without the CUPTI profiler: {}; --cupti requires it",
                         s.cupti_why));
    } else {
      opt.profiler = lib;
    }
  } else if (a.speedup) {
    s.cupti_why = "turned off (--no-cupti)";
  }
  // Compiled once here, outside the sandbox, with no operator code; a cache that cannot be made
  // costs time, never the run.
  const fs::path bytecode_root =
      a.bytecode_cache.empty() ? default_python_bytecode_root() : fs::path(a.bytecode_cache);
  if (!a.no_bytecode_cache && !bytecode_root.empty()) {
    try {
      const PythonBytecode bc =
          prepare_python_bytecode(opt.runner.python, bytecode_root, kRunnerPackages);
      opt.runner.python.bytecode_cache = bc.dir;
      s.bytecode = {{"dir", bc.dir.string()},
                    {"compiled", bc.compiled},
                    {"missing", bc.missing},
                    {"failed", bc.failed}};
    } catch (const std::runtime_error& e) {
      note(
          fmt::format("kjudge: warning: no bytecode cache, each run compiles torch: {}", e.what()));
    }
  }
  return std::nullopt;
}

TritonEvalDone run_triton_eval_jobs(const TritonEvalRunOptions& a, TritonEvalSetup& s,
                                    const TritonEvalSandbox& sandbox, const TritonEvalNote& note) {
  TritonEvalOptions& opt = s.opt;
  const std::vector<TritonJob>& jobs = s.jobs;
  const fs::path& run_dir = s.run_dir;
  const bool resuming = s.resuming;
  TritonEvalRunOptions args = a;
  args.cupti = !opt.profiler.empty();
  opt.runner.step = sandbox.settings;
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
  if (!a.peaks.empty()) opt.peaks = read_gpu_peaks(a.peaks);
  opt.workers = a.workers;
  opt.keep_workspaces = a.keep_workspaces;
  // One clear stop before the first operator, and before the run folder is made, where nothing
  // can run here (no torch, no GPU): not a judge_error per operator.
  if (opt.require_torch) {
    char tmpl[] = "/tmp/kjudge-triton-preflight-XXXXXX";
    if (const char* made = mkdtemp(tmpl)) {
      const std::string why = triton_preflight(opt.runner, fs::path(made) / "work");
      std::error_code ec;
      fs::remove_all(made, ec);
      if (!why.empty()) throw Error(exit_code::environment, "kjudge triton eval: " + why);
    }
  }
  const nlohmann::ordered_json identity = triton_run_identity(identity_options(args), jobs);
  if (fs::exists(s.results_path) && !a.resume)
    throw InputError(s.results_path.string(), 0, "",
                     "holds an earlier run's results; pass --resume to finish that run, or "
                     "choose another --out");
  if (resuming) check_triton_run_identity(run_dir, identity);
  fs::create_directories(run_dir);
  write_triton_run_json(run_dir, identity, resuming);
  TritonJournal journal(run_dir, jobs);
  const std::vector<TritonJob> todo = journal.todo(jobs);
  if (resuming) {
    // What a killed run left in flight is of no use now.
    std::error_code ec;
    if (!a.keep_workspaces) fs::remove_all(run_dir / "work", ec);
    if (!a.quiet)
      note(fmt::format("kjudge: resuming {}: {} of {} candidates already judged", run_dir.string(),
                       journal.earlier(), jobs.size()));
  }
  opt.on_result = [&journal](const TritonJobResult& r) { journal.append(r); };
  opt.on_reference = [&journal](const TritonOperator& op, const TritonRunOutcome& ref,
                                const TritonReferenceCheck& check, const TritonDefect* defect) {
    journal.append_reference(op, ref, check, defect);
  };
  fs::create_directories(run_dir / "work");
  opt.work_dir = fs::absolute(run_dir / "work");
  // Progress goes out beside --json too (a long timed run that is cut off otherwise leaves
  // nothing that says how far it got).
  if (!a.quiet) opt.progress = note;
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
        {"cupti_why", s.cupti_why.empty() ? nlohmann::ordered_json(nullptr)
                                          : nlohmann::ordered_json(s.cupti_why)},
        {"bytecode_cache", s.bytecode},
        {"peaks",
         opt.peaks ? nlohmann::ordered_json{{"file", a.peaks},
                                            {"gpu", opt.peaks->gpu},
                                            {"memory_bandwidth_bytes_per_s",
                                             opt.peaks->memory_bandwidth_bytes_per_s},
                                            {"matmul_flops_per_s", opt.peaks->matmul_flops_per_s}}
                   : nlohmann::ordered_json(nullptr)},
        {"sandbox", sandbox.mode},
        {"memory_limit_bytes", sandbox.settings.memory_limit_bytes},
        {"sandbox_limits", sandbox.limits_how},
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
    for (const UnmatchedLine& u : s.llm.unmatched)
      unmatched.push_back(
          {{"line", u.line}, {"reason", u.reason}, {"instruction_start", u.instruction_start}});
    nlohmann::ordered_json no_code = nlohmann::ordered_json::array();
    for (const TritonCandidate& c : s.llm.candidates)
      if (!c.code_error.empty())
        no_code.push_back(
            {{"source", c.source}, {"operator", c.operator_name}, {"why", c.code_error}});
    info["llm_generated"] = {{"file", a.llm_generated},
                             {"candidates", s.llm.candidates.size()},
                             {"unmatched", std::move(unmatched)},
                             {"without_code", std::move(no_code)}};
  }

  if (resuming) info["resumed"] = {{"earlier_results", journal.earlier()}};

  // results.jsonl is written as the candidates are judged; references.jsonl is put in the
  // jobs' order at the end, and the summary covers the earlier runs' results too.
  TritonEvalResult res = evaluate_triton(todo, opt);
  journal.finish_references(jobs);
  journal.add_earlier(res, opt.defects);
  nlohmann::ordered_json summary = triton_summary_json(res, info);
  if (a.codebleu) summary["codebleu"] = codebleu_json(a, jobs, s.bench);
  write_file_atomically(run_dir / "summary.json", summary.dump(2) + "\n");
  if (!opt.keep_workspaces) {
    std::error_code ec;
    fs::remove(run_dir / "work", ec);  // empty by now; kept when a workspace is still there
  }
  return {std::move(summary), res.scores.all.judge_errors > 0};
}

}  // namespace kjudge::triton
