#include "eval/summary.h"

#include <gtest/gtest.h>

namespace kjudge {
namespace {

GradedSolution g(const std::string& task, int sample, Verdict v, const std::string& group,
                 const std::string& diff = "easy") {
  GradedSolution x;
  x.task_id = task;
  x.sample = sample;
  x.verdict = v;
  x.group = group;
  x.difficulty = diff;
  if (v == Verdict::skipped) x.skip_code = "no_gpu";
  return x;
}

TEST(Summary, PassAtKPerGroupAndDifficulty) {
  std::vector<GradedSolution> r = {
      g("a", 0, Verdict::pass, "k"),
      g("a", 1, Verdict::test_fail, "k"),
      g("b", 0, Verdict::build_error, "k", "hard"),
      g("b", 1, Verdict::build_error, "k", "hard"),
      g("c", 0, Verdict::pass, "m"),
      g("c", 1, Verdict::pass, "m"),
      g("d", 0, Verdict::skipped, "m"),
      g("d", 1, Verdict::skipped, "m"),
  };
  SummaryOptions o;
  o.ks = {1, 2, 3};
  auto s = summarize(r, o);
  // a: 1/2 → pass@1 0.5, pass@2 1; b: 0; c: 1; d skipped → left out.
  EXPECT_EQ(s["evaluated_problems"], 3);
  EXPECT_NEAR(s["pass_at_k"]["1"].get<double>(), (0.5 + 0 + 1) / 3, 1e-12);
  EXPECT_NEAR(s["pass_at_k"]["2"].get<double>(), (1 + 0 + 1) / 3.0, 1e-12);
  EXPECT_TRUE(s["pass_at_k"]["3"].is_null()) << "k above the sample count is not estimable";
  EXPECT_NEAR(s["groups"]["k"]["pass_at_k"]["1"].get<double>(), 0.25, 1e-12);
  EXPECT_NEAR(s["groups"]["m"]["pass_at_k"]["1"].get<double>(), 1.0, 1e-12);
  EXPECT_NEAR(s["difficulties"]["hard"]["pass_at_k"]["1"].get<double>(), 0.0, 1e-12);
  EXPECT_EQ(s["verdicts"]["skipped"], 2);
  EXPECT_EQ(s["skipped_reasons"]["no_gpu"], 2);
  EXPECT_EQ(s["failures"].size(), 3u);
}

TEST(Summary, JudgeErrorsAreNotChargedToTheModel) {
  std::vector<GradedSolution> r = {g("a", 0, Verdict::pass, "k"),
                                   g("a", 1, Verdict::judge_error, "k")};
  SummaryOptions o;
  o.ks = {1};
  auto s = summarize(r, o);
  EXPECT_DOUBLE_EQ(s["pass_at_k"]["1"].get<double>(), 1.0);
  EXPECT_EQ(s["judge_errors"].size(), 1u);
  EXPECT_TRUE(s["failures"].empty());
}

}  // namespace
}  // namespace kjudge
