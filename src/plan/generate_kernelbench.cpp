// `kjudge generate --kernelbench`. Declared, and explained, in plan/generate_kernelbench.h.
#include "plan/generate_kernelbench.h"

#include <fmt/format.h>

#include <chrono>
#include <fstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/input_error.h"
#include "core/run_identity.h"
#include "kernelbench/generation/answers.h"
#include "kernelbench/generation/prompt.h"
#include "plan/ask_model.h"

namespace kjudge::plan {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The key of the problem `text` names: what `kjudge kernelbench eval --problem` accepts.
std::string problem_key(const kernelbench::Dataset& d, const std::string& text, int level) {
  const kernelbench::Problem* p = nullptr;
  if (auto ref = kernelbench::parse_problem_ref(text)) {
    p = ref->file.empty() ? d.find(ref->level, ref->id) : d.find_file(ref->level, ref->file);
  } else if (level > 0 && !text.empty() && text.size() < 7 &&
             text.find_first_not_of("0123456789") == std::string::npos) {
    p = d.find(level, std::stoi(text));
  } else if (level > 0) {
    p = d.find_file(level, text);
  }
  if (!p)
    throw InputError("--task", 0, text,
                     "names no KernelBench problem of the data folder (give L1/19, "
                     "level1/19_ReLU.py, or a number with --level)");
  return p->key();
}

}  // namespace

std::vector<Problem> kernelbench_prompts(const kernelbench::Dataset& dataset,
                                         const ProblemFilter& filter, int level) {
  std::vector<Problem> all;
  for (const kernelbench::Problem& p : dataset.problems)
    if (level == 0 || p.level == level) all.push_back(kernelbench::kernelbench_problem(p));
  ProblemFilter f = filter;
  f.task_ids.clear();
  for (const std::string& t : filter.task_ids) f.task_ids.push_back(problem_key(dataset, t, level));
  std::vector<Problem> out = filter_problems(all, f);
  if (out.empty())
    throw InputError(dataset.dir.string(), 0, "", "no problems to ask for (after filters)");
  return out;
}

nlohmann::ordered_json kernelbench_generation_fields(const GenArgs& args, std::size_t problems,
                                                     const kernelbench::KernelBenchAnswers& answers,
                                                     std::size_t failed_requests,
                                                     const fs::path& out,
                                                     std::chrono::steady_clock::time_point t0) {
  const std::size_t total = problems * static_cast<std::size_t>(args.samples);
  const std::size_t got = answers.solutions.size();
  nlohmann::ordered_json fields = {
      {"model", args.model},
      {"provider", args.provider},
      {"problems", problems},
      {"samples_per_problem", args.samples},
      {"answers", got},
      {"missing", total > got ? total - got : 0},
      {"unusable_answers", answers.unusable.size()},
      {"unusable", answers.unusable},
      {"truncated_answers", answers.truncated},
      {"failed_requests", failed_requests},
      {"usage", {{"input_tokens", answers.in_tokens}, {"output_tokens", answers.out_tokens}}},
      {"solutions", (out / "kernelbench-solutions.jsonl").string()},
      {"journal", (out / "generation.jsonl").string()},
      {"wall_s", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()}};
  if (args.price_in && args.price_out)
    fields["estimated_cost_usd"] =
        (answers.in_tokens * *args.price_in + answers.out_tokens * *args.price_out) / 1e6;
  else
    fields["estimated_cost_usd"] = nullptr;
  return fields;
}

int run_kernelbench_generate(const GenArgs& args, const KernelBenchGenOptions& kb,
                             const fs::path& out) {
  const auto t0 = std::chrono::steady_clock::now();
  if (args.turns > 1)
    throw InputError("--turns", 0, "",
                     "is not supported with --kernelbench yet: judging a turn needs the GPU "
                     "runner (use kjudge run --kernelbench, or generate, then kjudge "
                     "kernelbench eval)");
  const kernelbench::Dataset dataset = kernelbench::load_kernelbench(kb.dir, kb.level);
  const std::vector<Problem> problems = kernelbench_prompts(dataset, args.filter, kb.level);

  // What --resume must find unchanged besides what the session checks itself (the model, the
  // endpoint, the prompt files): the problems the prompts are made of.
  GenArgs session_args = args;
  session_args.problems = kb.dir;
  const nlohmann::ordered_json settings = {
      {"kernelbench", fs::weakly_canonical(fs::absolute(kb.dir)).string()},
      {"level",
       kb.level == 0 ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(kb.level)}};
  const fs::path settings_file = out / "kernelbench-gen.json";
  if (args.resume && fs::exists(settings_file)) {
    static const IdentityField kFields[] = {{"kernelbench", "--kernelbench"}, {"level", "--level"}};
    std::ifstream in(settings_file);
    const auto prev = nlohmann::ordered_json::parse(in, nullptr, false);
    if (!prev.is_discarded()) check_run_identity(settings_file, out, prev, settings, kFields);
  }
  GenerationSession session(session_args, out);
  session.open();
  write_json_atomically(settings_file, settings);

  ask_model(session, problems);

  const kernelbench::KernelBenchAnswers answers =
      kernelbench::kernelbench_answers(problems, dataset, session.records());
  const fs::path solutions = out / "kernelbench-solutions.jsonl";
  kernelbench::write_kernelbench_solutions(solutions, answers.solutions);
  const std::size_t total = problems.size() * static_cast<std::size_t>(args.samples);
  const std::size_t got = answers.solutions.size();
  nlohmann::ordered_json summary = {{"schema_version", 1},
                                    {"kind", "kjudge-kernelbench-generation-summary"},
                                    {"kernelbench", kb.dir},
                                    {"level", kb.level == 0 ? json(nullptr) : json(kb.level)}};
  summary.update(kernelbench_generation_fields(args, problems.size(), answers,
                                               session.failed_requests(), out, t0));
  write_json_atomically(out / "summary.json", summary);
  if (args.json) fmt::print("{}\n", summary.dump(2));
  if (!args.quiet)
    fmt::print(stderr,
               "generated {} of {} answers ({} without usable code, {} truncated); tokens in {} "
               "out {}\nsolutions: {}\n",
               got, total, answers.unusable.size(), answers.truncated, answers.in_tokens,
               answers.out_tokens, solutions.string());
  if (total > got) {
    fmt::print(stderr,
               "kjudge: {} answers missing; finish with: kjudge generate ... --out {} --resume\n",
               total - got, out.string());
    return session.failed_requests() == 0 ? exit_code::interrupted : exit_code::judge_error;
  }
  return exit_code::ok;
}

}  // namespace kjudge::plan
