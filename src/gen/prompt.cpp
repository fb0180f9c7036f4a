#include "gen/prompt.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <stdexcept>

#include "core/input_error.h"
#include "core/read_file.h"
#include "core/text.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;

// Our own wording of ComputeEval's structure (role, rules, output format, quality). The
// example block matters: without one, models drift to headings or prose for file names.
constexpr const char* kCudaCppSystem =
    R"(You are an experienced CUDA C/C++ engineer. You are given a programming task, the command that will build your code together with hidden tests, and the files that come with the task. You answer with the source code that solves it.

Rules
- Write complete files that compile as they are: no placeholders, no elided parts, no "rest stays the same".
- Keep every function signature, type and declaration that the task or its context files define: the hidden tests use them exactly as declared.
- Do not write tests or a main() function; the hidden tests bring their own.
- The hidden tests are built with the build command shown. Read it closely: its -I paths say where headers are looked up, and the file names in it say which files your code must be in.
- Use only the libraries the build command links; add no other dependencies.
- Give the full contents of every file you add or change, and only of those: leave context files you do not change out.
- Put each file in its own fenced code block whose first line is a comment with the file's path relative to the working directory, for example:
```cuda
// file: scale.cu
#include "scale.h"

__global__ void scale(float* x, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}
```
- Write nothing outside the code blocks: no explanations, summaries or reasoning.

Quality
- Check bounds in every kernel: the grid may hold more threads than there are elements.
- Let neighbouring threads access neighbouring addresses (coalesced memory access).
- Make results deterministic: no data races, and no dependence on the order in which threads or blocks run.
- Check the status of every CUDA API call that returns one, and of kernel launches.)";

constexpr const char* kCudaCppUser = R"(Write the CUDA C/C++ code that solves the task below.

Problem:
{{prompt}}

Build command:
{{build_command}}

Context files:
{{context_files}}

Output requirements:
- Each file you add or change goes in its own fenced code block whose first line is `// file: <path>`.
- Put the solution in {{solution_path}}, plus any other files you need.
- Give complete file contents. Leave out context files you do not change, tests and main().
- Write no text outside the code blocks.
Start your answer with the first code block.)";

constexpr const char* kCudaPythonSystem =
    R"(You are an experienced CUDA engineer who writes GPU code in Python (cuTile, CuPy, Numba, CUDA Python). You are given a programming task, the commands that will run your code together with hidden tests, and the files that come with the task. You answer with the source code that solves it.

Rules
- Write complete modules that import and run as they are: no placeholders, no elided parts, no "rest stays the same".
- Keep every function name, signature and class that the task or its context files define: the hidden tests use them exactly as declared.
- Do not write tests or an `if __name__ == "__main__":` entry point; the hidden tests bring their own.
- The hidden tests import your code by its file and module names: read them from the task, the build command and the context files.
- Use only the packages the task and its context files use; add no other dependencies.
- Give the full contents of every file you add or change, and only of those: leave context files you do not change out.
- Put each file in its own fenced code block whose first line is a comment with the file's path relative to the working directory, for example:
```python
# file: scale.py
import cupy as cp


def scale(x: cp.ndarray, a: float) -> cp.ndarray:
    return x * a
```
- Write nothing outside the code blocks: no explanations, summaries or reasoning.

Quality
- Guard every kernel or tile against out-of-range indices (bounds checks, masks).
- Access memory contiguously so that neighbouring threads touch neighbouring addresses.
- Make results deterministic: no data races, and no dependence on the order in which threads or blocks run.
- Validate shapes and dtypes where the task defines them, and let CUDA errors surface rather than hiding them.)";

constexpr const char* kCudaPythonUser = R"(Write the Python code that solves the task below.

Problem:
{{prompt}}

Build command:
{{build_command}}

Context files:
{{context_files}}

Output requirements:
- Each file you add or change goes in its own fenced code block whose first line is `# file: <path>`.
- Put the solution in {{solution_path}}, plus any other files you need.
- Give complete file contents. Leave out context files you do not change and tests.
- Write no text outside the code blocks.
Start your answer with the first code block.)";

// TritonBench operators (problem type "triton", triton/candidates/prompt.h). The instruction
// TritonBench ships already says what to write (its own preamble included); the system message adds
// only what the judge needs to read and run the answer.
constexpr const char* kTritonSystem =
    R"(You are an expert in writing Triton kernels for NVIDIA GPUs. You are given the description of an operator; you answer with one Python module that implements it: Triton kernels (@triton.jit) and the Python wrapper functions that launch them.

Rules
- Write one complete module in a single ```python fenced code block: the imports (torch, triton, triton.language as tl), every kernel and every wrapper. No placeholders, no elided parts.
- Keep the function names, classes and signatures the description gives: hidden tests import your module and call them exactly as described.
- Do the computation in Triton kernels; use PyTorch only to check arguments, allocate outputs and launch kernels.
- Do not write tests, usage examples or an `if __name__ == "__main__":` block; the hidden tests bring their own.
- Write nothing outside the code block: no explanations, summaries or reasoning.)";

constexpr const char* kTritonUser = "{{prompt}}";

// KernelBench problems (problem type "kernelbench", kernelbench/generation/prompt.h). KernelBench
// puts its whole prompt (task, one-shot example, instruction) in one user message; the system
// message only names the role, so the words the model is judged on are the benchmark's shape.
constexpr const char* kKernelBenchSystem =
    R"(You are an expert in writing fast GPU kernels. You rewrite PyTorch models with custom CUDA kernels, embedded in Python with torch.utils.cpp_extension.load_inline, and answer with the complete new model in one Python code block.)";

constexpr const char* kKernelBenchUser = "{{prompt}}";

std::string language_tag(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  if (ext == ".cu" || ext == ".cuh") return "cuda";
  if (ext == ".cpp" || ext == ".cc" || ext == ".hpp" || ext == ".h") return "cpp";
  if (ext == ".c") return "c";
  if (ext == ".py") return "python";
  return "";
}

std::string render_context_files(const Problem& problem) {
  if (problem.context_files.empty()) return "(none)";
  std::string out;
  for (const SourceFile& f : problem.context_files) {
    if (!out.empty()) out += "\n";
    const std::string fence = fence_for(f.content);
    out += "--- file: " + f.path + "\n" + fence + language_tag(f.path) + "\n" + f.content;
    if (!f.content.empty() && f.content.back() != '\n') out += "\n";
    out += fence + "\n";
  }
  // The template puts its own line break after the placeholder.
  out.pop_back();
  return out;
}

using ValueFn = std::function<std::string(const Problem&)>;

const std::map<std::string, ValueFn>& placeholders() {
  static const std::map<std::string, ValueFn> values = {
      {"prompt", [](const Problem& p) { return p.prompt; }},
      {"build_command",
       [](const Problem& p) { return p.build_command.value_or("(none: nothing is built)"); }},
      {"context_files", render_context_files},
      {"task_id", [](const Problem& p) { return p.task_id; }},
      {"group", [](const Problem& p) { return p.group; }},
      {"solution_path", expected_solution_path},
  };
  return values;
}

std::string known_placeholders() {
  std::string out;
  for (const auto& [name, fn] : placeholders()) out += (out.empty() ? "{{" : ", {{") + name + "}}";
  return out;
}

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(),
                     [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

// A prompt template is a page of text; a file far larger is a mistake, not a template.
constexpr std::uintmax_t kMaxPromptFileBytes = std::uintmax_t{16} << 20;

std::string read_template_file(const fs::path& path) {
  std::string text = read_input_file(path, kMaxPromptFileBytes);
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw InputError(path.string(), 0, "", "the prompt file is empty");
  return text;
}

// A source file the build names, as written in the command: quotes removed, `./` dropped.
std::string command_word(std::string w) {
  if (w.size() >= 2 && (w.front() == '"' || w.front() == '\'') && w.back() == w.front())
    w = w.substr(1, w.size() - 2);
  while (w.rfind("./", 0) == 0) w.erase(0, 2);
  return w;
}

bool is_source_name(const std::string& w) {
  if (w.empty() || w[0] == '-' || w.find_first_of("*?[$`=") != std::string::npos) return false;
  const fs::path p(w);
  const std::string ext = p.extension().string();
  return ext == ".cu" || ext == ".cpp" || ext == ".cc" || ext == ".c" || ext == ".py";
}

bool names_file_in(const std::string& w, const std::vector<SourceFile>& files) {
  return std::any_of(files.begin(), files.end(),
                     [&](const SourceFile& f) { return command_word(f.path) == w; });
}

}  // namespace

// A fence longer than any backtick run in the content, so a context file that holds a fenced
// block itself (a README, a docstring) cannot end ours early.
std::string fence_for(const std::string& content) {
  size_t longest = 0, run = 0;
  for (char c : content) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return std::string(std::max<size_t>(3, longest + 1), '`');
}

PromptTemplates default_templates(const std::string& problem_type) {
  if (problem_type == "cuda_cpp") return {kCudaCppSystem, kCudaCppUser};
  if (problem_type == "cuda_python") return {kCudaPythonSystem, kCudaPythonUser};
  if (problem_type == "triton") return {kTritonSystem, kTritonUser};
  if (problem_type == "kernelbench") return {kKernelBenchSystem, kKernelBenchUser};
  throw std::invalid_argument("no prompt for problem type '" + problem_type +
                              "' (known: cuda_cpp, cuda_python, triton, kernelbench)");
}

std::string render_template(const std::string& tmpl, const Problem& problem) {
  std::string out;
  size_t pos = 0;
  for (;;) {
    const size_t open = tmpl.find("{{", pos);
    const size_t close = open == std::string::npos ? open : tmpl.find("}}", open + 2);
    if (close == std::string::npos) break;
    const std::string name = trim_blanks(tmpl.substr(open + 2, close - open - 2));
    if (!is_identifier(name)) {
      // Step one brace only, so `{{{prompt}}}` still finds its placeholder.
      out.append(tmpl, pos, open + 1 - pos);
      pos = open + 1;
      continue;
    }
    auto it = placeholders().find(name);
    if (it == placeholders().end())
      throw std::invalid_argument("unknown placeholder {{" + name + "}} in the prompt template" +
                                  " (known: " + known_placeholders() + ")");
    out.append(tmpl, pos, open - pos);
    out += it->second(problem);
    pos = close + 2;
  }
  out.append(tmpl, pos);
  return out;
}

PromptTemplates load_templates(const std::string& problem_type,
                               const std::optional<fs::path>& system_file,
                               const std::optional<fs::path>& user_template_file) {
  PromptTemplates t = default_templates(problem_type);
  if (system_file) t.system = read_template_file(*system_file);
  if (user_template_file) {
    t.user = read_template_file(*user_template_file);
    try {
      Problem probe;
      probe.type = problem_type;
      render_template(t.user, probe);
    } catch (const std::invalid_argument& e) {
      throw InputError(user_template_file->string(), 0, "", e.what());
    }
  }
  return t;
}

std::vector<PromptMessage> build_prompt(const Problem& problem, const PromptTemplates& templates) {
  return {{"system", templates.system}, {"user", render_template(templates.user, problem)}};
}

std::string expected_solution_path(const Problem& problem) {
  if (problem.build_command) {
    std::istringstream words(*problem.build_command);
    std::string w;
    while (words >> w) {
      w = command_word(w);
      if (is_source_name(w) && !names_file_in(w, problem.test_files) &&
          !names_file_in(w, problem.context_files))
        return w;
    }
  }
  if (problem.baseline_solution && !problem.baseline_solution->files.empty())
    return problem.baseline_solution->files.front().path;
  return problem.type == "cuda_python" ? "solution.py" : "solution.cu";
}

}  // namespace kjudge
