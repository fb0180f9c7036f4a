#pragma once
// `kjudge generate --kernelbench DIR`: a model's ModelNew for every selected KernelBench problem
// (--level, --task L1/19, --limit), asked with KernelBench's prompt shape
// (kernelbench/generation/prompt.h), each answer's code taken by KernelBench's rule, written as
// kernelbench-solutions.jsonl, the file `kjudge kernelbench eval DIR --solutions` reads. The
// generation session gives it the journal, answers/, --resume and Ctrl-C; kernelbench-gen.json
// holds what --resume must find unchanged (the data folder, the level).
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <vector>

#include "kernelbench/data/problems.h"
#include "kernelbench/generation/answers.h"
#include "plan/generate.h"

namespace kjudge::plan {

// The problems to ask for, as prompts, in the data folder's order: `filter.task_ids` in
// KernelBench's names (L1/19, level1/19_ReLU.py, or a number with `level`), then
// `filter.limit`. Throws InputError for a name that is no problem, or when none is left.
std::vector<Problem> kernelbench_prompts(const kernelbench::Dataset& dataset,
                                         const ProblemFilter& filter, int level);

// What both KernelBench generation commands (this one, `run --kernelbench`) write about the
// model's answers: the model, how many problems and answers, the unusable and truncated ones,
// failed requests, tokens, the solutions file and journal in `out`, the time since `t0`, and the
// cost where both prices are given (null otherwise: no made-up figure).
nlohmann::ordered_json kernelbench_generation_fields(const GenArgs& args, std::size_t problems,
                                                     const kernelbench::KernelBenchAnswers& answers,
                                                     std::size_t failed_requests,
                                                     const std::filesystem::path& out,
                                                     std::chrono::steady_clock::time_point t0);

int run_kernelbench_generate(const GenArgs& args, const KernelBenchGenOptions& kb,
                             const std::filesystem::path& out);

}  // namespace kjudge::plan
