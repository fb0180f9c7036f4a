// `kjudge generate --tritonbench`: the options, the generation session (journal, answers/,
// --resume, Ctrl-C) and the files and summary of the run; what is Triton about it (the task
// filter, one-shot examples, answers as candidates) is triton/candidates/generation.h.
#include "cli/generate_triton.h"

#include <fmt/format.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <map>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/input_error.h"
#include "triton/candidates/generation.h"
#include "triton/candidates/llm_generated.h"
#include "triton/candidates/prompt.h"
#include "triton/data/tritonbench.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::atomic<GenerationSession*> g_triton_session{nullptr};

extern "C" void on_triton_generate_interrupt(int) {
  if (GenerationSession* s = g_triton_session.load()) s->request_stop();
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
}

}  // namespace

void add_triton_generate_options(CLI::App* g, TritonGenArgs& t) {
  g->add_option("--tritonbench", t.tritonbench,
                "TritonBench data folder: ask for Triton operators instead of --problems; writes "
                "triton-solutions.jsonl");
  g->add_option("--channel", t.channel, "With --tritonbench: only channel G or T (default both)")
      ->check(CLI::IsMember({"G", "T"}));
  g->add_option("--instruction", t.instruction,
                "With --tritonbench: the simple or complex instruction (default simple)")
      ->check(CLI::IsMember({"simple", "complex"}));
  g->add_option("--one-shot", t.one_shot,
                "With --tritonbench: show the most similar example (BM25) from this corpus: a "
                "JSONL or JSON array of {instruction, output|code}, or a TritonBench folder");
  g->add_option("--one-shot-db", t.one_shot_db,
                "Keep the one-shot FTS5 index in this SQLite file (default in memory)");
}

int run_triton_generate(const GenArgs& args, const TritonGenArgs& t, const fs::path& out) {
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
  const json settings = {{"tritonbench", fs::weakly_canonical(t.tritonbench).string()},
                         {"channel", t.channel},
                         {"instruction", t.instruction},
                         {"one_shot", triton::triton_corpus_fingerprint(t.one_shot)}};
  const fs::path settings_file = out / "triton-run.json";
  if (args.resume && fs::exists(settings_file)) {
    std::ifstream in(settings_file);
    const json prev = json::parse(in, nullptr, false);
    if (!prev.is_discarded() && prev != settings)
      throw InputError(settings_file.string(), 0, "",
                       "the TritonBench folder, channel, instruction or one-shot corpus differ "
                       "from the run being resumed");
  }
  GenerationSession session(session_args, out);
  session.open();
  write_json_atomically(settings_file, settings);
  if (!one_shot.empty()) write_json_atomically(out / "one-shot.json", one_shot);

  g_triton_session.store(&session);
  signal(SIGINT, on_triton_generate_interrupt);
  signal(SIGTERM, on_triton_generate_interrupt);
  session.run(problems, nullptr);
  g_triton_session.store(nullptr);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);

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

}  // namespace kjudge
