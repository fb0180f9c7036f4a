// kjudge triton {list, show, eval}: a look at a TritonBench data folder, and judging Triton
// operators against its references. A command of its own rather than `problems list`: a
// TritonBench operator has no build or test command and its reference is Python, so forcing it
// into the ComputeEval Problem model would invent fields. Here are the options, the wiring and
// the printing; the judging run itself is the engine's (triton/judge/eval_run.h).
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>

#include "cli/commands.h"
#include "cli/step_options.h"
#include "cli/triton_eval_args.h"
#include "core/error.h"
#include "core/input_error.h"
#include "triton/data/tritonbench.h"
#include "triton/judge/defects.h"
#include "triton/judge/eval_run.h"

namespace kjudge {
namespace {

struct TritonArgs {
  std::string dir;
  std::string op;
  std::string channel;  // "", "G" or "T"
  int difficulty = 0;   // 0: all
  bool json = false;
  bool code = false;
};

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
  auto channel = triton::triton_channel_filter(a.channel);
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
  const triton::TritonOperator* op = bench.find(a.op, triton::triton_channel_filter(a.channel));
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

void run_triton_eval(const TritonEvalArgs& a, int& rc) {
  // Notes, warnings and progress go to stderr, so they stay beside --json.
  const triton::TritonEvalNote note = [](const std::string& line) {
    fmt::print(stderr, "{}\n", line);
  };
  triton::TritonEvalSetup setup;
  if (std::optional<triton::TritonEvalStop> stop = triton::prepare_triton_eval(a, setup, note))
    throw Error(stop->kind == triton::TritonEvalStop::Kind::usage ? exit_code::usage
                                                                  : exit_code::environment,
                stop->message);
  const ResolvedSteps steps = resolve_step_options(a.steps, a.log_cap);
  const triton::TritonEvalDone done =
      triton::run_triton_eval_jobs(a, setup, {steps.settings, steps.mode, steps.limits_how}, note);
  if (a.json) {
    fmt::print("{}\n", done.summary.dump(2));
  } else if (!a.quiet) {
    print_table(done.summary);
    fmt::print("results: {}\n", setup.results_path.string());
  }
  rc = done.judge_errors ? exit_code::judge_error : exit_code::ok;
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
