#pragma once
// Triton candidates: one piece of code a model wrote for one TritonBench operator, as
// `kjudge generate --tritonbench` writes them and as read from the paper's published outputs
// (thunlp/TritonBench LLM_generated/*.jsonl, one `{instruction, predict, label}` per line), so
// those outputs can be rescored by the judge rather than by upstream's scripts.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "triton/data/operator.h"
#include "triton/data/tritonbench.h"

namespace kjudge::triton {

// Which of the two shipped prompts an answer was asked with.
enum class InstructionKind { simple, complex };
std::string_view instruction_kind_name(InstructionKind k);  // "simple" | "complex"
std::optional<InstructionKind> parse_instruction_kind(std::string_view s);
const std::string& instruction_of(const TritonOperator& op, InstructionKind k);

struct TritonCandidate {
  TritonChannel channel = TritonChannel::G;
  std::string file;           // the operator's file, e.g. "add_example.py"
  std::string operator_name;  // e.g. "add_example", "torch.div"
  InstructionKind instruction = InstructionKind::simple;
  int sample = 0;    // index among the candidates for the same operator, from 0
  std::string code;  // the module to judge; empty when the answer held none
  // Non-empty when no code came out of the answer: the candidate then fails (it stays one, so
  // call and execution accuracy keep their denominators).
  std::string code_error;
  std::vector<std::string> warnings;  // what the code extraction tolerated
  std::string label;                  // LLM_generated: the line's label (G: reference code)
  std::string source;                 // where it came from, e.g. "gpt4o.jsonl:12"
};

// One line of a Triton solutions JSONL, the file `kjudge triton eval --solutions` reads:
// exactly {"channel", "file", "operator", "code", "sample", "instruction"}. A candidate without
// code has "code": "" and fails when run; why it has none is in the run's summary.
nlohmann::json triton_solution_json(const TritonCandidate& c);

// A line of an LLM_generated file whose instruction is none of the loaded operators'.
struct UnmatchedLine {
  int line = 0;
  std::string reason;
  std::string instruction_start;  // the first 120 characters, to recognise it by
};

struct LlmGeneratedFile {
  std::vector<TritonCandidate> candidates;  // in file order
  std::vector<UnmatchedLine> unmatched;
};

// Reads an LLM_generated JSONL. Each line's `instruction` must equal one of the shipped
// instructions (G or T, simple or complex; line ends and surrounding whitespace aside); that
// names its operator and instruction kind. The code is taken from `predict` by
// extract_triton_code (triton/candidates/prompt.h). Lines that match no operator are listed in
// `unmatched`; malformed JSON, a line that is not an object, or a missing or non-string
// `instruction` / `predict` (or a non-string `label`) is an InputError naming file, line and
// field.
LlmGeneratedFile read_llm_generated(const std::filesystem::path& path, const TritonBench& bench);

}  // namespace kjudge::triton
