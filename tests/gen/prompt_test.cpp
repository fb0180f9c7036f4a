#include "gen/prompt.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <stdexcept>
#include <string>

#include "bounded_child.h"
#include "core/input_error.h"
#include "test_util.h"

namespace kjudge {
namespace {

using testing::TempDir;
using testing::write_text;

constexpr const char* kSecret = "HIDDEN_TEST_MARKER_7f3a";

Problem sample_problem() {
  Problem p;
  p.task_id = "CUDA/151";
  p.group = "cuda-kernels";
  p.prompt = "Implement miller_rabin_kernel, declared in include/miller_rabin.h.";
  p.build_command = "nvcc -I include -o test.out solution.cu helper.cu test/*.cu -arch=native";
  p.test_command = "./test.out";
  p.context_files = {
      {"include/miller_rabin.h", "#pragma once\n__global__ void miller_rabin_kernel(int n);\n"},
      {"helper.cu", "int helper() { return 1; }"},  // no final newline
      {"notes.txt", "plain notes\n"},
  };
  p.test_files = {{"test/test_main.cu", std::string("// ") + kSecret + "\nint main() {}\n"}};
  return p;
}

std::string user_message(const Problem& p) {
  const auto messages = build_prompt(p, default_templates(p.type));
  EXPECT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0].role, "system");
  EXPECT_EQ(messages[1].role, "user");
  return messages[1].content;
}

TEST(Prompt, DefaultUserMessageHoldsProblemBuildAndContext) {
  const Problem p = sample_problem();
  const std::string user = user_message(p);
  EXPECT_NE(user.find("Problem:\n" + p.prompt + "\n"), std::string::npos) << user;
  EXPECT_NE(user.find("Build command:\n" + *p.build_command + "\n"), std::string::npos);
  EXPECT_NE(user.find("--- file: include/miller_rabin.h\n```cpp\n#pragma once\n"
                      "__global__ void miller_rabin_kernel(int n);\n```\n"),
            std::string::npos)
      << user;
  // A file without a final newline still gets its closing fence on a line of its own.
  EXPECT_NE(user.find("--- file: helper.cu\n```cuda\nint helper() { return 1; }\n```\n"),
            std::string::npos);
  EXPECT_NE(user.find("--- file: notes.txt\n```\nplain notes\n```"), std::string::npos);
  EXPECT_NE(user.find("solution.cu"), std::string::npos);
  EXPECT_NE(user.find("// file: <path>"), std::string::npos);
  // Ends with the instruction to start with code.
  EXPECT_NE(user.rfind("first code block"), std::string::npos);
  EXPECT_GT(user.rfind("first code block"), user.find("Context files:"));
  EXPECT_EQ(user.find("{{"), std::string::npos);
}

TEST(Prompt, HiddenTestsNeverLeak) {
  Problem p = sample_problem();
  p.baseline_solution = Solution{p.task_id, 0, {{"solution.cu", kSecret}}, ""};
  for (const auto& m : build_prompt(p, default_templates("cuda_cpp"))) {
    EXPECT_EQ(m.content.find(kSecret), std::string::npos) << m.role;
    EXPECT_EQ(m.content.find("test/test_main.cu"), std::string::npos) << m.role;
  }
}

TEST(Prompt, SystemMessageStatesTheRules) {
  const std::string cpp = default_templates("cuda_cpp").system;
  EXPECT_NE(cpp.find("CUDA C/C++ engineer"), std::string::npos);
  EXPECT_NE(cpp.find("// file: "), std::string::npos);
  EXPECT_NE(cpp.find("main()"), std::string::npos);
  EXPECT_NE(cpp.find("-I"), std::string::npos);
  EXPECT_NE(cpp.find("bounds"), std::string::npos);
  const PromptTemplates py = default_templates("cuda_python");
  EXPECT_NE(py.system.find("# file: "), std::string::npos);
  EXPECT_EQ(py.system.find("// file: "), std::string::npos);
  EXPECT_NE(py.user.find("# file: <path>"), std::string::npos);
}

TEST(Prompt, CodeFenceInContextFileGetsALongerFence) {
  Problem p = sample_problem();
  p.context_files = {{"README.md.h", "// example:\n// ```\n// x\n// ```\n"}};
  EXPECT_NE(user_message(p).find("--- file: README.md.h\n````cpp\n"), std::string::npos);
}

TEST(Prompt, NoContextFilesNoBuildCommand) {
  Problem p = sample_problem();
  p.context_files.clear();
  p.build_command.reset();
  const std::string user = user_message(p);
  EXPECT_NE(user.find("Context files:\n(none)"), std::string::npos) << user;
  EXPECT_NE(user.find("Build command:\n(none"), std::string::npos);
}

TEST(Prompt, RendersEveryPlaceholder) {
  Problem p = sample_problem();
  p.context_files = {{"a.cuh", "x\n"}};
  EXPECT_EQ(render_template("{{task_id}}|{{ group }}|{{solution_path}}|{{prompt}}|"
                            "{{build_command}}|{{context_files}}",
                            p),
            "CUDA/151|cuda-kernels|solution.cu|" + p.prompt + "|" + *p.build_command +
                "|--- file: a.cuh\n```cuda\nx\n```");
}

TEST(Prompt, ValuesAreNotRenderedAgain) {
  Problem p = sample_problem();
  p.prompt = "use {{group}} and {{nope}}";
  EXPECT_EQ(render_template("[{{prompt}}]", p), "[use {{group}} and {{nope}}]");
}

TEST(Prompt, BracesThatAreNotPlaceholdersStay) {
  const Problem p = sample_problem();
  EXPECT_EQ(render_template("int a[2][2] = {{1, 2}, {3, 4}}; {{ }}", p),
            "int a[2][2] = {{1, 2}, {3, 4}}; {{ }}");
  EXPECT_EQ(render_template("{{{task_id}}}", p), "{CUDA/151}");
  EXPECT_EQ(render_template("open {{task_id", p), "open {{task_id");
}

TEST(Prompt, UnknownPlaceholderIsAnError) {
  try {
    render_template("Problem: {{promt}}", sample_problem());
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("{{promt}}"), std::string::npos) << e.what();
  }
}

TEST(Prompt, UnknownProblemTypeIsAnError) {
  try {
    default_templates("gpumode");
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("gpumode"), std::string::npos);
  }
  EXPECT_THROW(load_templates("gpumode", std::nullopt, std::nullopt), std::invalid_argument);
}

TEST(Prompt, TemplatesFromFiles) {
  TempDir dir;
  write_text(dir / "system.txt", "You write kernels.");
  write_text(dir / "user.txt", "Task {{task_id}} ({{group}}):\n{{prompt}}\n");
  const PromptTemplates both = load_templates("cuda_cpp", dir / "system.txt", dir / "user.txt");
  const auto messages = build_prompt(sample_problem(), both);
  EXPECT_EQ(messages[0].content, "You write kernels.");
  EXPECT_EQ(messages[1].content,
            "Task CUDA/151 (cuda-kernels):\n" + sample_problem().prompt + "\n");

  // Either one alone: the other stays the default.
  const PromptTemplates defaults = default_templates("cuda_cpp");
  const PromptTemplates user_only = load_templates("cuda_cpp", std::nullopt, dir / "user.txt");
  EXPECT_EQ(user_only.system, defaults.system);
  const PromptTemplates system_only = load_templates("cuda_cpp", dir / "system.txt", std::nullopt);
  EXPECT_EQ(system_only.user, defaults.user);
}

TEST(Prompt, BadTemplateFilesAreInputErrors) {
  TempDir dir;
  const std::string missing = (dir / "missing.txt").string();
  EXPECT_EQ(testing::expect_input_error([&] {
              load_templates("cuda_cpp", dir / "missing.txt", std::nullopt);
            }).file(),
            missing);
  EXPECT_EQ(testing::expect_input_error([&] {
              load_templates("cuda_cpp", std::nullopt, dir.path());
            }).file(),
            dir.path().string());
  write_text(dir / "empty.txt", "\n  \n");
  testing::expect_input_error([&] { load_templates("cuda_cpp", dir / "empty.txt", std::nullopt); });
  // A typo is caught when the file is loaded, before any problem is rendered.
  write_text(dir / "typo.txt", "{{prompt}} {{build_cmd}}");
  const InputError e = testing::expect_input_error(
      [&] { load_templates("cuda_cpp", std::nullopt, dir / "typo.txt"); });
  EXPECT_EQ(e.file(), (dir / "typo.txt").string());
  EXPECT_NE(e.reason().find("{{build_cmd}}"), std::string::npos) << e.reason();
}

TEST(Prompt, AFifoTemplateIsRefusedNotWaitedOn) {
  TempDir dir;
  ASSERT_EQ(mkfifo((dir / "system.txt").c_str(), 0600), 0);
  const auto r =
      testing::run_bounded([&] { load_templates("cuda_cpp", dir / "system.txt", std::nullopt); },
                           std::size_t{1} << 30, 10);
  ASSERT_EQ(r.outcome, testing::BoundedResult::Outcome::input_error) << r.message;
  EXPECT_NE(r.message.find("system.txt"), std::string::npos) << r.message;
}

TEST(ExpectedSolutionPath, FromTheBuildCommand) {
  Problem p = sample_problem();
  EXPECT_EQ(expected_solution_path(p), "solution.cu");  // helper.cu is a context file
  p.build_command = "nvcc -I include -o test.out test/test_main.cu ./src/kernel.cu -lcublas";
  EXPECT_EQ(expected_solution_path(p), "src/kernel.cu");
  p.build_command = "g++ -std=c++17 -o t \"impl.cpp\" test/*.cc";
  EXPECT_EQ(expected_solution_path(p), "impl.cpp");
}

TEST(ExpectedSolutionPath, FallsBackToTheBaselineThenTheType) {
  Problem p = sample_problem();
  p.build_command = "nvcc -I include -o test.out helper.cu test/*.cu";
  p.baseline_solution = Solution{p.task_id, 0, {{"include/impl.cuh", ""}, {"x.cu", ""}}, ""};
  EXPECT_EQ(expected_solution_path(p), "include/impl.cuh");
  p.baseline_solution.reset();
  EXPECT_EQ(expected_solution_path(p), "solution.cu");
  p.type = "cuda_python";
  p.build_command.reset();
  EXPECT_EQ(expected_solution_path(p), "solution.py");
  p.build_command = "python -m py_compile kernels/sum.py";
  EXPECT_EQ(expected_solution_path(p), "kernels/sum.py");
}

}  // namespace
}  // namespace kjudge
