// The code of an answer by KernelBench's rule: the first fenced block (not the last, not the
// longest), trimmed, its "python" or "cpp" word dropped; no block, an unclosed block or an empty
// one is no code, with the reason; a leading <think> section is not read.
#include "kernelbench/generation/extract.h"

#include <gtest/gtest.h>

namespace kjudge::kernelbench {
namespace {

TEST(KernelBenchExtract, TakesTheFirstBlockWithoutItsLanguageWord) {
  const ExtractedCode c = extract_kernelbench_code(
      "Here is my plan.\n```python\nclass ModelNew:\n    pass\n```\nAnd a second try:\n"
      "```python\nclass ModelNew:\n    x = 2\n```\n");
  EXPECT_EQ(c.code, "class ModelNew:\n    pass");
  EXPECT_EQ(c.error, "");
}

TEST(KernelBenchExtract, DropsCppAndPythonWordsAsKernelBenchDoes) {
  EXPECT_EQ(extract_kernelbench_code("```cpp\nint x;\n```").code, "int x;");
  EXPECT_EQ(extract_kernelbench_code("```\n  import torch\n\n```").code, "import torch");
  // Any other tag stays: KernelBench knows only these two words.
  EXPECT_EQ(extract_kernelbench_code("```py\nimport torch\n```").code, "py\nimport torch");
}

TEST(KernelBenchExtract, NoCompleteBlockIsNoCodeWithTheReason) {
  ExtractedCode c = extract_kernelbench_code("I cannot help with that.");
  EXPECT_EQ(c.code, "");
  EXPECT_EQ(c.error, "the answer holds no code block");
  c = extract_kernelbench_code("```python\nclass ModelNew:\n    def forward(self, x):\n");
  EXPECT_EQ(c.code, "");
  EXPECT_NE(c.error.find("not closed"), std::string::npos) << c.error;
  c = extract_kernelbench_code("```python\n\n```");
  EXPECT_EQ(c.code, "");
  EXPECT_NE(c.error.find("empty"), std::string::npos) << c.error;
}

TEST(KernelBenchExtract, ReasoningBeforeTheAnswerIsNotTaken) {
  const ExtractedCode c = extract_kernelbench_code(
      "<think>maybe\n```python\ndraft = 1\n```\n</think>\n```python\nclass ModelNew: pass\n```");
  EXPECT_EQ(c.code, "class ModelNew: pass");
  EXPECT_EQ(extract_kernelbench_code("<think>still thinking ```python\nx\n```").code, "");
}

}  // namespace
}  // namespace kjudge::kernelbench
