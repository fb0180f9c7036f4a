// `kjudge generate` (plan/generate.h): the ComputeEval and the TritonBench runs.
#include "plan/generate.h"

#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <memory>

#include "core/atomic_file.h"
#include "core/datapack.h"
#include "core/error.h"
#include "core/input_error.h"
#include "core/run_identity.h"
#include "eval/build_cache.h"
#include "plan/ask_model.h"
#include "plan/generate_kernelbench.h"
#include "plan/load.h"
#include "plan/turn_judge.h"
#include "run/machine.h"
#include "run/sandbox.h"
#include "triton/candidates/generation.h"
#include "triton/candidates/llm_generated.h"
#include "triton/candidates/prompt.h"
#include "triton/data/tritonbench.h"

namespace kjudge::plan {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

int run_triton_generate(const GenArgs& args, const TritonGenOptions& t, const fs::path& out) {
  auto t0 = std::chrono::steady_clock::now();
  if (args.turns > 1)
    throw InputError("--turns", 0, "",
                     "is not supported with --tritonbench yet: judging a turn needs the Triton "
                     "runner (generate, then kjudge triton eval)");
  const std::optional<triton::InstructionKind> kind = triton::parse_instruction_kind(t.instruction);
  if (!kind) throw InputError("--instruction", 0, "", "expected simple or complex");
  std::optional<triton::TritonChannel> channel;
  if (t.channel == "G") channel = triton::TritonChannel::G;
  if (t.channel == "T") channel = triton::TritonChannel::T;

  const triton::TritonBench bench = triton::load_tritonbench(t.tritonbench);
  triton::TritonTaskMap by_task;
  std::vector<Problem> problems;
  for (const triton::TritonOperator& op : bench.operators) {
    if (channel && op.channel != *channel) continue;
    problems.push_back(triton::triton_problem(op, *kind, nullptr));
    by_task[problems.back().task_id] = &op;
  }
  ProblemFilter filter = args.filter;
  filter.task_ids = triton::resolve_triton_tasks(filter.task_ids, bench, channel);
  problems = filter_problems(problems, filter);
  if (problems.empty())
    throw InputError(t.tritonbench, 0, "", "no operators to ask for (after filters)");

  // One-shot: each prompt gets its best example, never the operator itself, chosen before any
  // request (triton/candidates/generation.h).
  json one_shot = json::object();
  if (!t.one_shot.empty()) {
    one_shot = triton::add_oneshot_examples(problems, by_task, *kind, t.one_shot, t.one_shot_db);
  }

  // What must not change on --resume besides what the session checks itself (model,
  // endpoint, prompt files): the operators' prompts come from these.
  GenArgs session_args = args;
  session_args.problems = t.tritonbench;
  const nlohmann::ordered_json settings = {
      {"tritonbench", fs::weakly_canonical(t.tritonbench).string()},
      {"channel", t.channel},
      {"instruction", t.instruction},
      {"one_shot", triton::triton_corpus_fingerprint(t.one_shot)}};
  const fs::path settings_file = out / "triton-run.json";
  if (args.resume && fs::exists(settings_file)) {
    static const IdentityField kFields[] = {{"tritonbench", "--tritonbench"},
                                            {"channel", "--channel"},
                                            {"instruction", "--instruction"},
                                            {"one_shot", "--one-shot", true}};
    std::ifstream in(settings_file);
    const auto prev = nlohmann::ordered_json::parse(in, nullptr, false);
    if (!prev.is_discarded()) check_run_identity(settings_file, out, prev, settings, kFields);
  }
  GenerationSession session(session_args, out);
  session.open();
  write_json_atomically(settings_file, settings);
  if (!one_shot.empty()) write_json_atomically(out / "one-shot.json", one_shot);

  ask_model(session, problems);

  // The solutions: the code of every answer, re-read from the raw text by the Triton rule
  // (extract_triton_code), so generated and published (LLM_generated) answers are read alike.
  const triton::TritonAnswers answers =
      triton::triton_answers(problems, by_task, *kind, session.records());
  const std::vector<triton::TritonCandidate>& candidates = answers.candidates;
  const json& unusable = answers.unusable;
  const long in_tokens = answers.in_tokens, out_tokens = answers.out_tokens;
  const int truncated = answers.truncated;
  const fs::path solutions = out / "triton-solutions.jsonl";
  triton::write_triton_solutions(solutions, candidates);
  const std::size_t total = problems.size() * static_cast<std::size_t>(args.samples);
  json summary = {
      {"schema_version", 1},
      {"kind", "kjudge-triton-generation-summary"},
      {"model", args.model},
      {"provider", args.provider},
      {"tritonbench", t.tritonbench},
      {"channel", t.channel.empty() ? json(nullptr) : json(t.channel)},
      {"instruction", t.instruction},
      {"one_shot", t.one_shot.empty() ? json(nullptr) : json(t.one_shot)},
      {"operators", problems.size()},
      {"samples_per_operator", args.samples},
      {"answers", candidates.size()},
      {"missing", total > candidates.size() ? total - candidates.size() : 0},
      {"unusable_answers", unusable.size()},
      {"unusable", unusable},
      {"truncated_answers", truncated},
      {"failed_requests", session.failed_requests()},
      {"usage", {{"input_tokens", in_tokens}, {"output_tokens", out_tokens}}},
      {"solutions", solutions.string()},
      {"journal", (out / "generation.jsonl").string()},
      {"wall_s", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()}};
  if (args.price_in && args.price_out)
    summary["estimated_cost_usd"] =
        (in_tokens * *args.price_in + out_tokens * *args.price_out) / 1e6;
  else
    summary["estimated_cost_usd"] = nullptr;  // no price given: no made-up figure
  write_json_atomically(out / "summary.json", summary);
  if (args.json) fmt::print("{}\n", summary.dump(2));

  const std::size_t missing = summary["missing"].get<std::size_t>();
  if (!args.quiet)
    fmt::print(stderr,
               "generated {} of {} answers ({} without usable code, {} truncated); tokens in {} "
               "out {}\nsolutions: {}\n",
               candidates.size(), total, unusable.size(), truncated, in_tokens, out_tokens,
               solutions.string());
  if (missing > 0) {
    fmt::print(stderr,
               "kjudge: {} answers missing; finish with: kjudge generate ... --out {} --resume\n",
               missing, out.string());
    return session.failed_requests() == 0 ? exit_code::interrupted : exit_code::judge_error;
  }
  return exit_code::ok;
}

}  // namespace

int run_generate(const GenArgs& a, const TritonGenOptions& t, const KernelBenchGenOptions& k) {
  auto t0 = std::chrono::steady_clock::now();
  // KernelBench problems: its own prompt shape and a solutions JSONL for kernelbench eval.
  if (!k.dir.empty()) {
    if (!a.problems.empty() || !t.tritonbench.empty())
      throw InputError("--kernelbench", 0, "",
                       "give one of --problems, --tritonbench and --kernelbench");
    return run_kernelbench_generate(
        a, k, fs::path(a.out.empty() ? default_generation_dir(a.model) : a.out));
  }
  if (k.level > 0) throw InputError("--level", 0, "", "is an option of --kernelbench");
  // TritonBench operators have their own prompts and a solutions JSONL instead of a pack.
  if (!t.tritonbench.empty()) {
    if (!a.problems.empty())
      throw InputError("--tritonbench", 0, "", "give either --problems or --tritonbench");
    return run_triton_generate(a, t,
                               fs::path(a.out.empty() ? default_generation_dir(a.model) : a.out));
  }
  if (a.problems.empty())
    throw InputError("--problems", 0, "",
                     "name the problems to ask for (or a TritonBench folder: --tritonbench DIR)");
  LoadReport report;
  std::vector<Problem> problems = filter_problems(read_problems_any(a.problems, &report), a.filter);
  int load_errors = print_load_errors(report);
  if (problems.empty())
    throw InputError(a.problems, 0, "", "no problems to ask for (after filters)");

  const fs::path out = a.out.empty() ? fs::path(default_generation_dir(a.model)) : fs::path(a.out);
  GenerationSession session(a, out);
  session.open();

  // --turns: every answer is built and tested here, in the sandbox, as it arrives.
  std::unique_ptr<plan::TurnJudge> judge;
  if (a.turns > 1) {
    EvalOptions eo;
    eo.sandbox = true;
    eo.bwrap = locate_bwrap();
    eo.cache_dir = a.cache_dir.empty() ? default_cache_dir() : fs::path(a.cache_dir);
    SandboxPolicy probe;
    probe.bwrap = eo.bwrap;
    std::string why;
    if (!sandbox_available(probe, &why)) {
      throw Error(exit_code::environment,
                  fmt::format("--turns judges each answer in the sandbox, which does not work "
                              "here: {}\n  install bubblewrap (apt-get install bubblewrap)",
                              why));
    }
    judge = std::make_unique<plan::TurnJudge>(eo, probe_machine());
    session.set_judge([&judge](const Problem& p, const Solution& s) { return judge->judge(p, s); });
  }
  ask_model(session, problems);

  nlohmann::json summary =
      session.finish(problems, "summary.json",
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  if (a.json) fmt::print("{}\n", summary.dump(2));
  const std::size_t answers = summary["answers"].get<std::size_t>();
  const std::size_t missing = summary["missing"].get<std::size_t>();
  if (!a.quiet) {
    fmt::print(
        stderr,
        "generated {} of {} answers ({} without usable code, {} truncated); tokens in "
        "{} out {}{}\nsolutions: {}\n",
        answers, answers + missing, summary["unusable_answers"].get<int>(),
        summary["truncated_answers"].get<int>(), summary["usage"]["input_tokens"].get<long>(),
        summary["usage"]["output_tokens"].get<long>(),
        summary["estimated_cost_usd"].is_null()
            ? std::string()
            : fmt::format("; estimated cost ${:.4f}", summary["estimated_cost_usd"].get<double>()),
        summary["solutions_pack"].get<std::string>());
  }
  if (missing > 0) {
    fmt::print(stderr,
               "kjudge: {} answers missing; finish with: kjudge generate ... --out {} --resume\n",
               missing, out.string());
    return session.failed_requests() == 0 ? exit_code::interrupted : exit_code::judge_error;
  }
  return load_errors ? exit_code::findings : exit_code::ok;
}

}  // namespace kjudge::plan
