#pragma once
// The words to a model for a KernelBench problem, in the shape of KernelBench's own prompt
// (its prompt_constructor: prompt_generate_custom_cuda_from_prompt_template), in this project's
// words: the problem statement (write CUDA kernels that replace PyTorch operators, with the
// freedom to choose which), the one-shot pair (kernelbench/generation/one_shot.h), the
// problem's file as it is in the data folder, and the instruction to name the result ModelNew
// and output it in one code block. The Problem it becomes is what the generator asks for.
#include <string>

#include "core/problem.h"
#include "kernelbench/data/problems.h"

namespace kjudge::kernelbench {

// The problem type under which the KernelBench prompts are found (gen/prompt.h).
inline constexpr const char* kKernelBenchProblemType = "kernelbench";

// The whole user message for `problem` (its code verbatim, fenced).
std::string kernelbench_user_prompt(const Problem& problem);

// The problem as a Problem the generator can ask for: type "kernelbench", task_id its key
// ("L1/19"), prompt = kernelbench_user_prompt, group "level1", and "model_new.py" as the file an
// answer's one unnamed block is taken as.
kjudge::Problem kernelbench_problem(const Problem& problem);

}  // namespace kjudge::kernelbench
