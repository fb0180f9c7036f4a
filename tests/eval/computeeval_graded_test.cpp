// ComputeEval's graded-solution records from kjudge's (eval/computeeval_graded.h). That
// ComputeEval's own reader loads them is computeeval_reader_test.py's proof.
#include "eval/computeeval_graded.h"

#include <gtest/gtest.h>

namespace kjudge {
namespace {

Problem problem() {
  Problem p;
  p.task_id = "CUDA/7";
  p.date = "2026-01-01";
  p.prompt = "Write it.";
  p.group = "cuda-kernels";
  p.releases = {"2026-1"};
  p.context_files = {{"include/k.h", "void k();"}};
  p.test_files = {{"test/t.cu", "int main() { return check(); }"}};
  p.build_command = "nvcc -o t.out solution.cu test/t.cu";
  p.test_command = "./t.out";
  return p;
}

GradedSolution graded(Verdict v) {
  GradedSolution g;
  g.task_id = "CUDA/7";
  g.sample = 2;
  g.verdict = v;
  g.detail = "why, in words";
  return g;
}

Solution solution() {
  Solution s;
  s.task_id = "CUDA/7";
  s.sample = 2;
  s.files = {{"solution.cu", "void k() {}"}};
  return s;
}

TEST(ComputeEvalGraded, APassCarriesBothLogsAndTheSolutionsFiles) {
  GradedSolution g = graded(Verdict::pass);
  g.build.ran = g.test.ran = true;
  g.build.log = "built";
  g.test.log = "all good";
  const Solution s = solution();
  const auto j = computeeval_graded_json(g, problem(), &s, "gpt-4.1", nullptr);
  EXPECT_EQ(j["task_id"], "CUDA/7");
  EXPECT_EQ(j["passed"], true);
  EXPECT_EQ(j["skipped"], false);
  EXPECT_EQ(j["build_output"], "built");
  EXPECT_EQ(j["test_output"], "all good");
  EXPECT_TRUE(j["speedup"].is_null());
  EXPECT_EQ(j["solution"]["type"], "file");
  EXPECT_EQ(j["solution"]["schema_version"], 1);
  EXPECT_EQ(j["solution"]["files"][0]["content"], "void k() {}");
  EXPECT_EQ(j["solution"]["datapack_name"], "gpt-4.1");
  EXPECT_EQ(j["solution"]["sample"], 2);
  EXPECT_EQ(j["kjudge"]["verdict"], "pass");
}

TEST(ComputeEvalGraded, TheProblemComesAsThePackHoldsItWithoutItsHiddenTests) {
  const Solution s = solution();
  const auto j = computeeval_graded_json(graded(Verdict::test_fail), problem(), &s, "m", nullptr);
  EXPECT_EQ(j["problem"]["type"], "cuda_cpp");
  EXPECT_EQ(j["problem"]["group"], "cuda-kernels");
  EXPECT_EQ(j["problem"]["context_files"][0]["path"], "include/k.h");
  EXPECT_TRUE(j["problem"]["test_files"].is_array());
  EXPECT_TRUE(j["problem"]["test_files"].empty());
  EXPECT_EQ(j.dump().find("check()"), std::string::npos) << "no line of the hidden test";
}

TEST(ComputeEvalGraded, ASkipAndAJudgeErrorAreSkippedNeitherChargedToTheModel) {
  for (Verdict v : {Verdict::skipped, Verdict::judge_error}) {
    const auto j = computeeval_graded_json(graded(v), problem(), nullptr, "m", nullptr);
    EXPECT_EQ(j["passed"], false) << v;
    EXPECT_EQ(j["skipped"], true) << v;
    EXPECT_EQ(j["solution"]["files"], nlohmann::ordered_json::array()) << "an empty FileSolution";
  }
  for (Verdict v : {Verdict::build_error, Verdict::test_fail, Verdict::crash,
                    Verdict::invalid_solution, Verdict::source_reference_missing})
    EXPECT_EQ(computeeval_graded_json(graded(v), problem(), nullptr, "m", nullptr)["skipped"],
              false)
        << v;
}

TEST(ComputeEvalGraded, EachFailureSaysWhyWhereComputeEvalSaysIt) {
  // ComputeEval puts a refused solution's reason in build_output, a missing source reference's
  // in test_output.
  auto invalid =
      computeeval_graded_json(graded(Verdict::invalid_solution), problem(), nullptr, "m", nullptr);
  EXPECT_EQ(invalid["build_output"], "why, in words");
  EXPECT_TRUE(invalid["test_output"].is_null());
  auto refs = computeeval_graded_json(graded(Verdict::source_reference_missing), problem(), nullptr,
                                      "m", nullptr);
  EXPECT_TRUE(refs["build_output"].is_null());
  EXPECT_EQ(refs["test_output"], "why, in words");
  GradedSolution b = graded(Verdict::build_error);
  b.build.ran = true;
  b.build.log = "error: expected ';'";
  auto build = computeeval_graded_json(b, problem(), nullptr, "m", nullptr);
  EXPECT_EQ(build["build_output"], "error: expected ';'");
  EXPECT_TRUE(build["test_output"].is_null()) << "the test never ran";
}

TEST(ComputeEvalGraded, TimingsComeFromThePerfLineAsMediansInMilliseconds) {
  const nlohmann::json timed = {{"task_id", "CUDA/7"},
                                {"sample", 2},
                                {"timed", true},
                                {"speedup", {{"estimate", 2.5}, {"low", 2.0}, {"high", 3.0}}},
                                {"solution", {{"median_ms", 4.0}}},
                                {"baseline", {{"median_ms", 10.0}}}};
  const ComputeEvalTiming t = computeeval_timing(timed);
  const auto j = computeeval_graded_json(graded(Verdict::pass), problem(), nullptr, "m", &t);
  EXPECT_DOUBLE_EQ(j["solution_time"].get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(j["baseline_time"].get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(j["speedup"].get<double>(), 2.5);
  EXPECT_TRUE(j["benchmark_output"].is_null());
  EXPECT_TRUE(j["solution_metrics"].is_null());

  const ComputeEvalTiming n = computeeval_timing(
      {{"timed", false}, {"speedup", nullptr}, {"not_timed", "the baseline failed here"}});
  const auto k = computeeval_graded_json(graded(Verdict::pass), problem(), nullptr, "m", &n);
  EXPECT_TRUE(k["speedup"].is_null());
  EXPECT_EQ(k["benchmark_output"], "the baseline failed here");
}

TEST(ComputeEvalGraded, TheFileIsNamedAfterThePackAsComputeEvalNamesIt) {
  EXPECT_EQ(computeeval_graded_file_name("gpt-4.1"), "gpt-4.1-graded-solutions.jsonl");
}

}  // namespace
}  // namespace kjudge
