// The code of a model's answer. Declared, and explained, in kernelbench/generation/extract.h.
#include "kernelbench/generation/extract.h"

namespace kjudge::kernelbench {
namespace {

std::string trimmed(const std::string& s) {
  const char* ws = " \t\r\n\f\v";
  const size_t b = s.find_first_not_of(ws);
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

// The answer after its reasoning, when it opens with one.
std::string without_thinking(const std::string& answer) {
  const std::string text = trimmed(answer);
  if (!text.starts_with("<think>")) return text;
  const size_t end = text.find("</think>");
  return end == std::string::npos ? "" : text.substr(end + 8);
}

}  // namespace

ExtractedCode extract_kernelbench_code(const std::string& answer) {
  ExtractedCode out;
  const std::string text = trimmed(without_thinking(answer));
  const size_t open = text.find("```");
  const size_t close = open == std::string::npos ? open : text.find("```", open + 3);
  if (close == std::string::npos) {
    out.error = open == std::string::npos
                    ? "the answer holds no code block"
                    : "the answer's code block is not closed (cut off at the token limit?)";
    return out;
  }
  std::string code = trimmed(text.substr(open + 3, close - open - 3));
  // KernelBench strips each language word it knows in turn, then trims again.
  for (const char* lang : {"python", "cpp"})
    if (code.starts_with(lang)) code = trimmed(code.substr(std::string(lang).size()));
  if (code.empty()) out.error = "the answer's first code block is empty";
  out.code = std::move(code);
  return out;
}

}  // namespace kjudge::kernelbench
