// The prompt for a KernelBench problem. Declared, and explained, in
// kernelbench/generation/prompt.h.
#include "kernelbench/generation/prompt.h"

#include "gen/prompt.h"
#include "kernelbench/generation/one_shot.h"

namespace kjudge::kernelbench {
namespace {

constexpr const char* kStatement =
    "You write custom CUDA kernels that replace the PyTorch operators of the architecture you "
    "are given, to make it faster.\n\n"
    "You choose which operators to replace. You may replace some of them with custom CUDA "
    "kernels and leave the others as they are, replace several, fuse operators into one kernel "
    "(a matmul followed by a relu, for example), or change the algorithm (an online softmax, "
    "for example). Only your imagination limits you.\n";

constexpr const char* kInstruction =
    "Optimize the architecture named Model with custom CUDA operators. Name the optimized "
    "architecture ModelNew, and output its complete code in one code block. Write real code, "
    "not pseudocode: it must compile and run as it is. Output only the new model's code: no "
    "other text, and no testing code.\n";

// A fenced Python block; the fence is longer than any backtick run of the code, so a docstring
// holding a fence cannot close it early.
std::string fenced(const std::string& code) {
  const std::string fence = fence_for(code);
  std::string out = fence + "python\n" + code;
  if (!code.empty() && code.back() != '\n') out += "\n";
  return out + fence + "\n";
}

}  // namespace

std::string kernelbench_user_prompt(const Problem& problem) {
  const OneShotPair& ex = elementwise_add_example();
  return std::string(kStatement) +
         "\nHere is an example that shows the syntax of custom CUDA operators embedded inline "
         "in PyTorch. The example's architecture:\n\n" +
         fenced(ex.model) + "\nThe same architecture with a custom CUDA kernel:\n\n" +
         fenced(ex.model_new) + "\nYou are given the following architecture:\n\n" +
         fenced(problem.code) + "\n" + kInstruction;
}

kjudge::Problem kernelbench_problem(const Problem& problem) {
  kjudge::Problem p;
  p.type = kKernelBenchProblemType;
  p.task_id = problem.key();
  p.prompt = kernelbench_user_prompt(problem);
  p.group = "level" + std::to_string(problem.level);
  p.host_only = false;
  // Only the name, read by expected_solution_path(): the code stays in the prompt.
  kjudge::Solution names_the_file;
  names_the_file.task_id = p.task_id;
  names_the_file.files.push_back({"model_new.py", ""});
  p.baseline_solution = names_the_file;
  return p;
}

}  // namespace kjudge::kernelbench
