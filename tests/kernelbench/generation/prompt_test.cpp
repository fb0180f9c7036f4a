// The KernelBench prompt against the data folder's real problem file: KernelBench's shape (the
// statement, the one-shot pair, the problem's code verbatim, the instruction to answer with
// ModelNew in one code block, in that order), the Problem the generator asks for, and the
// one-shot pair itself being a problem and its solution of the same interface.
#include "kernelbench/generation/prompt.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "gen/prompt.h"
#include "kernelbench/generation/one_shot.h"
#include "test_util.h"

namespace kjudge::kernelbench {
namespace {

namespace fs = std::filesystem;
const fs::path kData = fs::path(KJUDGE_SOURCE_DIR "/../shared/datasets/kernelbench");

#define SKIP_WITHOUT_DATA()                                                            \
  do {                                                                                 \
    if (!fs::is_directory(kData)) GTEST_SKIP() << "shared dataset missing: " << kData; \
  } while (0)

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(KernelBenchPrompt, HoldsTheRealProblemFileBetweenTheExampleAndTheInstruction) {
  SKIP_WITHOUT_DATA();
  const Dataset d = load_kernelbench(kData, 1);
  const Problem* relu = d.find(1, 19);
  ASSERT_NE(relu, nullptr);
  const std::string file = testing::read_text(kData / "level1/19_ReLU.py");
  ASSERT_NE(file.find("torch.relu(x)"), std::string::npos) << "not the file this test expects";
  const std::string prompt = kernelbench_user_prompt(*relu);

  // The problem's file as it is, in a fenced block of its own.
  const std::string closed = file.ends_with("\n") ? file : file + "\n";
  const std::size_t code = prompt.find("```python\n" + closed + "```\n");
  ASSERT_NE(code, std::string::npos) << prompt;
  EXPECT_EQ(count(prompt, file), 1u);
  // The one-shot pair, each verbatim and fenced.
  const OneShotPair& ex = elementwise_add_example();
  const std::size_t model = prompt.find("```python\n" + ex.model + "```\n");
  const std::size_t model_new = prompt.find("```python\n" + ex.model_new + "```\n");
  ASSERT_NE(model, std::string::npos);
  ASSERT_NE(model_new, std::string::npos);
  // KernelBench's order: statement, example, its solution, the problem, the instruction.
  const std::size_t statement = prompt.find("You write custom CUDA kernels");
  const std::size_t given = prompt.find("You are given the following architecture:");
  const std::size_t instruction = prompt.find("Optimize the architecture named Model");
  ASSERT_NE(statement, std::string::npos);
  ASSERT_NE(given, std::string::npos);
  ASSERT_NE(instruction, std::string::npos);
  EXPECT_EQ(statement, 0u);
  EXPECT_LT(statement, model);
  EXPECT_LT(model, model_new);
  EXPECT_LT(model_new, given);
  EXPECT_LT(given, code);
  EXPECT_LT(code, instruction);
  const std::string tail = prompt.substr(instruction);
  EXPECT_NE(tail.find("Name the optimized architecture ModelNew"), std::string::npos) << tail;
  EXPECT_NE(tail.find("in one code block"), std::string::npos) << tail;
  EXPECT_NE(tail.find("no testing code"), std::string::npos) << tail;
  // No other problem of the level reaches the model.
  const Problem* matmul = d.find(1, 1);
  ASSERT_NE(matmul, nullptr);
  EXPECT_EQ(prompt.find(matmul->code), std::string::npos);
}

TEST(KernelBenchPrompt, IsAProblemTheGeneratorAsksForUnderItsKey) {
  SKIP_WITHOUT_DATA();
  const Dataset d = load_kernelbench(kData, 2);
  const Problem& first = d.problems.front();
  const kjudge::Problem p = kernelbench_problem(first);
  EXPECT_EQ(p.type, "kernelbench");
  EXPECT_EQ(p.task_id, first.key());
  EXPECT_EQ(p.task_id, "L2/" + std::to_string(first.id));
  EXPECT_EQ(p.group, "level2");
  EXPECT_EQ(p.prompt, kernelbench_user_prompt(first));
  EXPECT_EQ(expected_solution_path(p), "model_new.py");
  // The user message is the prompt itself; the system message names the role only.
  const std::vector<PromptMessage> m = build_prompt(p, default_templates("kernelbench"));
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].role, "system");
  EXPECT_EQ(m[1].role, "user");
  EXPECT_EQ(m[1].content, p.prompt);
  EXPECT_EQ(m[0].content.find(first.code), std::string::npos);
  EXPECT_NE(m[0].content.find("load_inline"), std::string::npos);
}

TEST(KernelBenchPrompt, TheOneShotPairIsAProblemAndItsSolution) {
  const OneShotPair& ex = elementwise_add_example();
  for (const char* part : {"class Model(nn.Module)", "def get_inputs():", "def get_init_inputs():"})
    EXPECT_NE(ex.model.find(part), std::string::npos) << part;
  EXPECT_EQ(ex.model.find("ModelNew"), std::string::npos);
  EXPECT_NE(ex.model_new.find("class ModelNew(nn.Module)"), std::string::npos);
  EXPECT_NE(ex.model_new.find("load_inline("), std::string::npos);
  EXPECT_NE(ex.model_new.find("__global__"), std::string::npos);
  // The same forward signature on both sides: the interface a solution keeps.
  const std::string forward = "def forward(self, x: torch.Tensor, y: torch.Tensor)";
  EXPECT_NE(ex.model.find(forward), std::string::npos);
  EXPECT_NE(ex.model_new.find(forward), std::string::npos);
}

}  // namespace
}  // namespace kjudge::kernelbench
