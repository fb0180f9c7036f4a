#pragma once
// The words sent to a model for one problem: a system message and a user message rendered from
// a template. Keyed by problem type, so other benchmarks (GPU MODE, TritonBench) can bring their
// own prompts later. The hidden tests are never shown: only the prompt, the build command and
// the context files reach the model, as in ComputeEval.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/problem.h"

namespace kjudge {

struct PromptTemplates {
  std::string system;  // the system message, sent as it is (no placeholders)
  std::string user;    // the user message template with placeholders (see render_template)
};

// The project's own prompts, with the structure of ComputeEval's: "cuda_cpp" (path comments
// `// file: <path>`) and "cuda_python" (`# file: <path>`); "triton" for TritonBench operators
// (triton/candidates/prompt.h); "kernelbench" for KernelBench problems
// (kernelbench/generation/prompt.h). Any other type throws std::invalid_argument naming it.
PromptTemplates default_templates(const std::string& problem_type);

// Replaces {{prompt}}, {{build_command}}, {{context_files}}, {{task_id}}, {{group}} and
// {{solution_path}} (expected_solution_path()); spaces inside the braces are allowed. An unknown
// identifier in braces throws std::invalid_argument naming it, so a typo is caught before any
// API call; braces around anything that is not an identifier (C++ initialisers such as
// `{{1, 2}}`) are left as they are. Values are not scanned again.
std::string render_template(const std::string& tmpl, const Problem& problem);

// The defaults for the type, with the system message and/or the user template replaced by the
// contents of the given files. A file that cannot be read or is empty, or a user template with
// an unknown placeholder, throws InputError naming the file.
PromptTemplates load_templates(const std::string& problem_type,
                               const std::optional<std::filesystem::path>& system_file,
                               const std::optional<std::filesystem::path>& user_template_file);

struct PromptMessage {
  std::string role;  // "system" | "user"
  std::string content;
};

// [system, user] for a problem.
std::vector<PromptMessage> build_prompt(const Problem& problem, const PromptTemplates& templates);

// The file a model is expected to write: the first word of build_command that names a source
// file (.cu .cpp .cc .c .py) and is neither a test file nor a context file (`nvcc -I include -o
// test.out solution.cu test/*.cu` gives "solution.cu"); else the baseline solution's first
// file; else "solution.py" for cuda_python and "solution.cu" for every other type.
std::string expected_solution_path(const Problem& problem);

// A Markdown fence longer than any backtick run in `content`, so content that holds a fenced
// block itself (a README, a docstring) cannot end the prompt's block early.
std::string fence_for(const std::string& content);

}  // namespace kjudge
