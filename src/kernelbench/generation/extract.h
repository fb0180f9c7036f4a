#pragma once
// The code taken out of a model's answer to a KernelBench prompt, by KernelBench's own rule (its
// extract_first_code with the languages python and cpp): the first fenced block of the answer,
// trimmed, without a leading "python" or "cpp" language word. Where the rule finds no block
// there is no code, and the sample is judged as one without code, as KernelBench counts it.
// One liberty: a leading <think>...</think> section (reasoning models) is dropped first, since
// the rule would otherwise take a block the model drafted while thinking.
#include <string>

namespace kjudge::kernelbench {

struct ExtractedCode {
  std::string code;   // empty when none was found
  std::string error;  // why there is no code
};

ExtractedCode extract_kernelbench_code(const std::string& answer);

}  // namespace kjudge::kernelbench
