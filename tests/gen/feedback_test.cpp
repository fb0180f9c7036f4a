#include "gen/feedback.h"

#include <gtest/gtest.h>

namespace kjudge {
namespace {

Problem problem_with_test() {
  Problem p;
  p.task_id = "t/1";
  p.test_files = {
      {"test/main.cu",
       "#include \"k.h\"\nint main() {\n  assert(h_out[i] == expected_secret_value(i));\n"
       "  return 0;\n}\n"}};
  return p;
}

TEST(Feedback, LinesQuotingTheHiddenTestsAreRemoved) {
  const std::string log =
      "test/main.cu(3): error: identifier \"expected_secret_value\" is undefined\n"
      "    assert(h_out[i] == expected_secret_value(i));\n"
      "          ^\n"
      "1 error detected\n";
  std::string r = redact_test_source(log, problem_with_test());
  EXPECT_EQ(r.find("assert(h_out[i] =="), std::string::npos) << r;
  EXPECT_NE(r.find("[a line of the hidden tests was removed]"), std::string::npos);
  // The compiler's own words stay: they are what the model needs.
  EXPECT_NE(r.find("error: identifier \"expected_secret_value\" is undefined"), std::string::npos);
  EXPECT_NE(r.find("1 error detected"), std::string::npos);
  // Short lines ("return 0;") are too common to hide.
  EXPECT_EQ(redact_test_source("  return 0;\n", problem_with_test()), "  return 0;\n");
}

TEST(Feedback, SaysWhatFailedAndShowsTheRedactedLogTail) {
  GradedSolution g;
  g.verdict = Verdict::test_fail;
  g.detail = "test exited with code 1";
  g.test.log = std::string(10000, 'x') + "\ntest.out: main.cu:3: int main(): Assertion `" +
               "assert(h_out[i] == expected_secret_value(i));` failed.\nLAST LINE\n";
  std::string f = judge_feedback(g, problem_with_test(), 200);
  EXPECT_NE(f.find("The hidden tests failed."), std::string::npos) << f;
  EXPECT_NE(f.find("LAST LINE"), std::string::npos);
  EXPECT_NE(f.find("[...]"), std::string::npos) << "cut to the tail";
  EXPECT_EQ(f.find("expected_secret_value(i))"), std::string::npos) << f;
  EXPECT_LT(f.size(), 600u);

  g.verdict = Verdict::build_error;
  g.build.log = "solution.cu(9): error: expected a \";\"\n";
  f = judge_feedback(g, problem_with_test());
  EXPECT_NE(f.find("The build failed."), std::string::npos);
  EXPECT_NE(f.find("expected a \";\""), std::string::npos);

  g.verdict = Verdict::pass;
  EXPECT_EQ(judge_feedback(g, problem_with_test()), "");
}

}  // namespace
}  // namespace kjudge
