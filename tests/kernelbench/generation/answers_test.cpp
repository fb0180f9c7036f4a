// Answers as KernelBench solutions: every journalled answer of an asked problem becomes one
// solution (its code by KernelBench's rule, none kept as empty code with the reason), and the
// file written is what `kjudge kernelbench eval --solutions` reads back, line for line.
#include "kernelbench/generation/answers.h"

#include <gtest/gtest.h>

#include "kernelbench/generation/prompt.h"
#include "test_util.h"

namespace kjudge::kernelbench {
namespace {

namespace fs = std::filesystem;
const fs::path kData = fs::path(KJUDGE_SOURCE_DIR "/../shared/datasets/kernelbench");

GenRecord answer(const std::string& task, int sample, const std::string& text) {
  GenRecord r;
  r.task_id = task;
  r.sample = sample;
  r.raw_answer = text;
  r.usage.input_tokens = 10;
  r.usage.output_tokens = 3;
  return r;
}

TEST(KernelBenchAnswers, EveryAnswerIsASolutionThatEvalReadsBack) {
  if (!fs::is_directory(kData)) GTEST_SKIP() << "shared dataset missing: " << kData;
  const Dataset d = load_kernelbench(kData, 1);
  const std::vector<kjudge::Problem> asked = {kernelbench_problem(*d.find(1, 19)),
                                              kernelbench_problem(*d.find(1, 3))};
  const std::vector<GenRecord> records = {
      answer("L1/19", 1, "```python\nclass ModelNew: one = 1\n```"),
      answer("L1/3", 0, "no code here"),
      answer("L1/19", 0, "```python\nclass ModelNew: zero = 0\n```\n```python\nlater\n```"),
      answer("L1/7", 0, "```python\nnot asked\n```")};
  const KernelBenchAnswers a = kernelbench_answers(asked, d, records);
  ASSERT_EQ(a.solutions.size(), 3u);
  EXPECT_EQ(a.solutions[0].key(), "L1/3#0");
  EXPECT_EQ(a.solutions[0].code, "");
  EXPECT_EQ(a.solutions[1].key(), "L1/19#0");
  EXPECT_EQ(a.solutions[1].code, "class ModelNew: zero = 0");
  EXPECT_EQ(a.solutions[2].key(), "L1/19#1");
  ASSERT_EQ(a.unusable.size(), 1u);
  EXPECT_EQ(a.unusable[0]["problem"], "L1/3");
  EXPECT_EQ(a.in_tokens, 30);
  EXPECT_EQ(a.out_tokens, 9);

  testing::TempDir dir;
  write_kernelbench_solutions(dir / "s.jsonl", a.solutions);
  const std::vector<nlohmann::json> lines = testing::read_jsonl(dir / "s.jsonl");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[1]["level"], 1);
  EXPECT_EQ(lines[1]["problem_id"], 19);
  EXPECT_EQ(lines[1]["name"], "19_ReLU.py");
  const std::vector<Solution> back = read_solutions(dir / "s.jsonl", d);
  ASSERT_EQ(back.size(), 3u);
  for (std::size_t i = 0; i < back.size(); ++i) {
    EXPECT_EQ(back[i].key(), a.solutions[i].key());
    EXPECT_EQ(back[i].code, a.solutions[i].code);
  }
}

TEST(KernelBenchAnswers, AnAnswerToNoProblemOfTheFolderIsRefused) {
  if (!fs::is_directory(kData)) GTEST_SKIP() << "shared dataset missing: " << kData;
  const Dataset d = load_kernelbench(kData, 1);
  EXPECT_THROW(solution_of_answer(answer("L1/999", 0, "```x```"), d), std::invalid_argument);
  EXPECT_THROW(solution_of_answer(answer("CUDA/1", 0, "```x```"), d), std::invalid_argument);
}

}  // namespace
}  // namespace kjudge::kernelbench
