// The prompt for a TritonBench operator and the code taken back out of a model's answer.
// Declared, and explained, in triton/candidates/prompt.h.
#include "triton/candidates/prompt.h"

#include <algorithm>

#include "gen/answer_parser.h"
#include "triton/candidates/oneshot_retrieval.h"

namespace kjudge::triton {
namespace {

void erase_all(std::string& text, const std::string& token) {
  for (size_t pos = text.find(token); pos != std::string::npos; pos = text.find(token, pos))
    text.erase(pos, token.size());
}

// Upstream's extraction (EVAL/eval_*: `pred.split("```python")[-1].split("```")[0]`): the text
// after the last ```python fence, up to the next fence or the end.
std::string after_last_python_fence(const std::string& text) {
  const size_t fence = text.rfind("```python");
  if (fence == std::string::npos) return "";
  size_t start = text.find('\n', fence);
  if (start == std::string::npos) return "";
  ++start;
  const size_t end = text.find("```", start);
  return text.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

bool blank(const std::string& s) { return s.find_first_not_of(" \t\r\n") == std::string::npos; }

// The last ```python block counting only fences at the start of a line. Code whose docstring
// holds an indented fenced example (upstream's fifth_order_sph_harmonics.py does) reads as
// several blocks when indented fences count; models write their own fences unindented.
std::string last_unindented_python_block(const std::string& text) {
  std::string found, current;
  bool inside = false, python = false;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!inside && line.starts_with("```")) {
      const std::string info = line.substr(line.find_first_not_of('`'));
      inside = true;
      python = info.empty() || info.starts_with("python") || info.starts_with("py");
      current.clear();
    } else if (inside && line.find_first_not_of('`') == std::string::npos && line.size() >= 3) {
      inside = false;
      if (python && !blank(current)) found = current;
    } else if (inside) {
      current += line + "\n";
    }
  }
  return found;
}

}  // namespace

// The words live with the other problem types' in gen/prompt.cpp, where the generator looks them
// up by problem type.
PromptTemplates triton_default_templates() { return default_templates(kTritonProblemType); }

std::string triton_task_id(const TritonOperator& op) {
  return std::string(channel_name(op.channel)) + "/" + op.file;
}

std::string triton_user_prompt(const TritonOperator& op, InstructionKind kind,
                               const OneShotExample* example) {
  const std::string& instruction = instruction_of(op, kind);
  if (!example) return instruction;
  const std::string fence = fence_for(example->code);
  std::string code = example->code;
  if (!code.empty() && code.back() != '\n') code += "\n";
  return "Here is an example of a similar task and a Triton solution to it.\n\n"
         "Example task:\n" +
         example->instruction + "\n\nExample solution:\n" + fence + "python\n" + code + fence +
         "\n\nNow the task to solve:\n\n" + instruction;
}

Problem triton_problem(const TritonOperator& op, InstructionKind kind,
                       const OneShotExample* example) {
  Problem p;
  p.type = kTritonProblemType;
  p.task_id = triton_task_id(op);
  p.prompt = triton_user_prompt(op, kind, example);
  p.group = std::string(channel_name(op.channel));
  p.difficulty = std::to_string(op.difficulty);
  p.host_only = false;
  // Only the name: expected_solution_path() reads it, so an answer's single unnamed block is
  // taken as the operator's file. The reference code stays out of the Problem.
  Solution names_the_file;
  names_the_file.task_id = p.task_id;
  names_the_file.files.push_back({op.file, ""});
  p.baseline_solution = names_the_file;
  return p;
}

TritonCode extract_triton_code(const std::string& answer, const std::string& file) {
  TritonCode out;
  std::string text = answer;
  for (const char* token : {"<|im_end|>", "<|EOT|>", "<|endoftext|>", "<|eot_id|>", "<|end|>"})
    erase_all(text, token);
  ParsedAnswer parsed = parse_answer(text, file);
  out.warnings = parsed.warnings;
  if (!parsed.files.empty()) {
    auto chosen = std::find_if(parsed.files.begin(), parsed.files.end(),
                               [&](const SourceFile& f) { return f.path == file; });
    if (chosen == parsed.files.end()) {
      // The last Python file, as upstream takes the last ```python block.
      for (auto it = parsed.files.rbegin(); it != parsed.files.rend(); ++it)
        if (it->path.ends_with(".py")) {
          chosen = std::prev(it.base());
          break;
        }
      if (chosen == parsed.files.end()) chosen = std::prev(parsed.files.end());
      out.warnings.push_back("no code block for '" + file + "'; took '" + chosen->path + "'");
    }
    if (parsed.files.size() > 1)
      out.warnings.push_back("the answer holds " + std::to_string(parsed.files.size()) +
                             " files; only '" + chosen->path + "' is judged");
    out.code = chosen->content;
    if (blank(out.code)) {
      out.code.clear();
      out.error = "the code block for '" + chosen->path + "' is empty";
    }
    return out;
  }
  // Several blocks naming no file: which one is meant is a guess, and upstream's guess is the
  // last ```python block. Taking the same one keeps rescored outputs comparable to the paper;
  // fences at the start of a line are tried first, so a fenced example inside a docstring does
  // not cut the code.
  std::string code = last_unindented_python_block(text);
  if (!blank(code)) {
    out.code = code;
    out.warnings.push_back("several code blocks name no file; took the last ```python block");
    return out;
  }
  code = after_last_python_fence(text);
  if (!blank(code)) {
    out.code = code;
    out.warnings.push_back(
        "several code blocks name no file; took the last ```python block "
        "(TritonBench's rule)");
    return out;
  }
  out.error = parsed.error.empty() ? "the answer holds no code" : parsed.error;
  return out;
}

}  // namespace kjudge::triton
