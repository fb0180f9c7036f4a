#pragma once
// The words to and from a model for a TritonBench operator: the prompt (the shipped
// instruction, optionally after a retrieved one-shot example) and the code taken back out of its
// answer. Used by `kjudge generate --tritonbench` and by the reader of the paper's published
// outputs (triton/candidates/llm_generated.h).
#include <string>
#include <vector>

#include "core/problem.h"
#include "gen/prompt.h"
#include "triton/candidates/llm_generated.h"
#include "triton/data/operator.h"

namespace kjudge::triton {

struct OneShotExample;

// The problem type under which the Triton prompts are found (default_templates).
inline constexpr const char* kTritonProblemType = "triton";

// Our own system message (output format and rules) and the user template "{{prompt}}": the user
// message is the instruction as TritonBench ships it, so the task text is the paper's.
PromptTemplates triton_default_templates();

// The user message: the instruction of `kind`, preceded by `example` when one is given (the
// paper's one-shot setting).
std::string triton_user_prompt(const TritonOperator& op, InstructionKind kind,
                               const OneShotExample* example);

// The operator as a Problem that the generator can ask for: type "triton", task_id
// "<channel>/<file>" (e.g. "G/add_example.py"), prompt = triton_user_prompt, group = channel,
// and the operator's file as the one expected file (expected_solution_path). Neither the
// reference nor the test code is put in it.
Problem triton_problem(const TritonOperator& op, InstructionKind kind,
                       const OneShotExample* example);

// "G/add_example.py" for an operator.
std::string triton_task_id(const TritonOperator& op);

struct TritonCode {
  std::string code;                   // empty when none was found
  std::vector<std::string> warnings;  // what was tolerated, one line each
  std::string error;                  // why there is no code
};

// The module in a model's answer. Chat-template end tokens (<|im_end|>, <|EOT|>, ...) are
// removed, then the answer parser (gen/answer_parser.h) reads the fenced blocks with `file` as
// the expected name. Of several files, `file` is taken, else the last .py one (upstream takes
// the last ```python block). Where the parser finds nothing usable because several blocks name
// no file, upstream's rule decides: the text after the last ```python fence.
TritonCode extract_triton_code(const std::string& answer, const std::string& file);

}  // namespace kjudge::triton
