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

// Issue 34: what compute-sanitizer found and which solutions were flaky, counted per solution.
TEST(Summary, CountsSanitizerFindingsAndListsFlakySolutions) {
  auto checked = [](GradedSolution x, std::vector<SanitizerOutcome> outcomes) {
    const char* tools[] = {"memcheck", "racecheck"};
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
      SanitizerRecord s;
      s.tool = tools[i];
      s.outcome = outcomes[i];
      if (outcomes[i] == SanitizerOutcome::errors) {
        s.errors = 3;
        s.report = {"Invalid __shared__ read of size 4 bytes"};
      }
      x.sanitizer.push_back(s);
    }
    return x;
  };
  GradedSolution flaky = g("f", 0, Verdict::test_fail, "k");
  flaky.repeats = {{Verdict::pass, "", 0, 0, false, 1}, {Verdict::test_fail, "", 1, 0, false, 1}};
  GradedSolution steady = g("f", 1, Verdict::pass, "k");
  steady.repeats = {{Verdict::pass, "", 0, 0, false, 1}, {Verdict::pass, "", 0, 0, false, 1}};
  std::vector<GradedSolution> r = {
      checked(g("a", 0, Verdict::pass, "k"), {SanitizerOutcome::clean, SanitizerOutcome::clean}),
      checked(g("a", 1, Verdict::sanitizer_error, "k"),
              {SanitizerOutcome::errors, SanitizerOutcome::inconclusive}),
      checked(g("b", 0, Verdict::judge_error, "k"),
              {SanitizerOutcome::clean, SanitizerOutcome::inconclusive}),
      g("b", 1, Verdict::test_fail, "k"),
      flaky,
      steady,
  };
  SummaryOptions o;
  o.sanitize = {"memcheck", "racecheck"};
  o.repeat = 2;
  auto s = summarize(r, o);
  const auto& san = s["sanitizer"];
  EXPECT_EQ(san["tools"], nlohmann::json({"memcheck", "racecheck"}));
  EXPECT_EQ(san["checked"], 3);
  EXPECT_EQ(san["clean"], 1);
  EXPECT_EQ(san["errors"], 1);
  EXPECT_EQ(san["inconclusive"], 1);
  EXPECT_EQ(san["by_tool"]["racecheck"]["inconclusive"], 2);
  ASSERT_EQ(san["flagged"].size(), 1u);
  EXPECT_EQ(san["flagged"][0]["task_id"], "a");
  EXPECT_EQ(san["flagged"][0]["sample"], 1);
  EXPECT_EQ(san["flagged"][0]["first_error"], "Invalid __shared__ read of size 4 bytes");
  EXPECT_EQ(s["verdicts"]["sanitizer_error"], 1);
  EXPECT_EQ(s["failures"].size(), 3u) << "a sanitizer_error is a failure of the model's";

  EXPECT_EQ(s["repeat"]["runs"], 2);
  EXPECT_EQ(s["repeat"]["repeated"], 2);
  EXPECT_EQ(s["repeat"]["flaky"], 1);
  EXPECT_EQ(s["repeat"]["flaky_solutions"][0]["runs"], nlohmann::json({"pass", "test_fail"}));

  // Without the checks, neither section.
  auto plain = summarize({g("a", 0, Verdict::pass, "k")}, SummaryOptions{});
  EXPECT_FALSE(plain.contains("sanitizer"));
  EXPECT_FALSE(plain.contains("repeat"));
}

}  // namespace
}  // namespace kjudge
