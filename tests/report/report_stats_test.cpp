// The statistics of `kjudge report --compare`: the exact McNemar test against values computed
// independently (exact binomial sums with Python's fractions), and the pairing of two runs.
#include <gtest/gtest.h>

#include "report/comparison.h"
#include "report/mcnemar.h"
#include "report/run_view.h"
#include "report/terminal_table.h"

namespace kjudge::report {
namespace {

using nlohmann::json;

TEST(ReportMcNemar, MatchesExactBinomialValues) {
  // 2 * P(X <= 2), X ~ Bin(12, 1/2) = 2 * 79 / 4096.
  EXPECT_NEAR(mcnemar_exact_p(10, 2), 0.03857421875, 1e-12);
  EXPECT_NEAR(mcnemar_exact_p(2, 10), 0.03857421875, 1e-12) << "two-sided: symmetric";
  EXPECT_NEAR(mcnemar_exact_p(0, 6), 0.03125, 1e-12);
  EXPECT_NEAR(mcnemar_exact_p(7, 0), 0.015625, 1e-12);
  EXPECT_NEAR(mcnemar_exact_p(1, 3), 0.625, 1e-12);
  // Large counts, where C(n, i) / 2^n would overflow a naive computation.
  EXPECT_NEAR(mcnemar_exact_p(120, 80), 0.0056851559967503055, 1e-12);
  EXPECT_NEAR(mcnemar_exact_p(1500, 1400), 0.06598734966518381, 1e-10);
}

TEST(ReportMcNemar, NoDiscordantPairsOrABalanceIsNoEvidence) {
  EXPECT_DOUBLE_EQ(mcnemar_exact_p(0, 0), 1.0);
  EXPECT_DOUBLE_EQ(mcnemar_exact_p(5, 5), 1.0) << "capped at 1, not 2 * P(X <= 5) > 1";
}

json row(const std::string& task, int sample, const std::string& verdict,
         const std::string& group = "g") {
  return {{"task_id", task},
          {"sample", sample},
          {"verdict", verdict},
          {"group", group},
          {"detail", verdict == "pass" ? "" : "why " + task}};
}

TEST(ReportCompare, PairsBySolutionAndCountsOnlyDiscordantPairsInTheTest) {
  RunData a, b;
  a.dir = "runs/model-a";
  b.dir = "runs/model-b";
  a.results = {row("t1", 0, "pass"),       row("t1", 1, "pass"),      row("t2", 0, "test_fail"),
               row("t3", 0, "crash", "h"), row("t4", 0, "pass", "h"), row("t5", 0, "skipped"),
               row("t6", 0, "pass")};
  b.results = {row("t1", 0, "pass"),      row("t1", 1, "build_error"), row("t2", 0, "pass"),
               row("t3", 0, "pass", "h"), row("t4", 0, "pass", "h"),   row("t5", 0, "pass"),
               row("t7", 0, "test_fail")};
  Comparison c = compare_runs(a, b);
  EXPECT_EQ(c.label_a, "model-a");
  EXPECT_EQ(c.pairs, 5);  // t1#0, t1#1, t2, t3, t4: t5 skipped in A, t6 and t7 in one run only
  EXPECT_EQ(c.both_pass, 2);
  EXPECT_EQ(c.both_fail, 0);
  EXPECT_EQ(c.a_only_pass, 1);
  EXPECT_EQ(c.b_only_pass, 2);
  EXPECT_EQ(c.unpaired, 3);            // t6 (A), t5 and t7 (B)
  EXPECT_NEAR(c.p_value, 1.0, 1e-12);  // 2 * P(X <= 1 | n = 3) = 2 * 4/8
  ASSERT_EQ(c.pass_to_fail.size(), 1u);
  EXPECT_EQ(c.pass_to_fail[0].task_id, "t1");
  EXPECT_EQ(c.pass_to_fail[0].sample, 1);
  EXPECT_EQ(c.pass_to_fail[0].verdict_b, "build_error");
  EXPECT_EQ(c.pass_to_fail[0].detail, "why t1") << "the failing side's detail";
  ASSERT_EQ(c.fail_to_pass.size(), 2u);
  EXPECT_EQ(c.fail_to_pass[0].task_id, "t2");
  EXPECT_EQ(c.fail_to_pass[1].group, "h");
  // Pass rates over every counted sample of each run, paired or not.
  EXPECT_EQ(c.all_a.passed, 4);
  EXPECT_EQ(c.all_a.counted, 6);
  EXPECT_EQ(c.all_b.passed, 5);
  EXPECT_EQ(c.all_b.counted, 7);
  EXPECT_EQ(c.groups.at("h").first.passed, 1);
  EXPECT_EQ(c.groups.at("h").second.passed, 2);
}

TEST(ReportCompare, ManyFlipsOneWayAreSignificant) {
  RunData a, b;
  for (int i = 0; i < 12; ++i) {
    const std::string t = "t" + std::to_string(i);
    a.results.push_back(row(t, 0, i < 10 ? "pass" : "test_fail"));
    b.results.push_back(row(t, 0, i < 10 ? "test_fail" : "pass"));
  }
  Comparison c = compare_runs(a, b);
  EXPECT_EQ(c.a_only_pass, 10);
  EXPECT_EQ(c.b_only_pass, 2);
  EXPECT_NEAR(c.p_value, 0.03857421875, 1e-12);
}

TEST(ReportView, SpeedupBinsAreHalfOpenAndCoverEverything) {
  auto bins = speedup_histogram({0.1, 0.5, 0.99, 1.0, 1.05, 2.0, 3.99, 4.0, 100.0});
  int total = 0;
  for (const auto& b : bins) total += b.count;
  EXPECT_EQ(total, 9);
  auto count_of = [&](const std::string& label) {
    for (const auto& b : bins)
      if (b.label == label) return b.count;
    return -1;
  };
  EXPECT_EQ(count_of("< 0.5×"), 1);
  EXPECT_EQ(count_of("0.95–1.05×"), 2);  // 0.99 and 1.0; 1.05 goes up
  EXPECT_EQ(count_of("1.05–1.25×"), 1);
  EXPECT_EQ(count_of("2–4×"), 2);
  EXPECT_EQ(count_of("≥ 4×"), 2);
}

TEST(ReportTerminalTable, OneRowPerSliceWithVerdictColumnsAndPassAtK) {
  json slice = {{"problems", 2},
                {"evaluated_problems", 2},
                {"solutions", 5},
                {"verdicts", {{"pass", 2}, {"build_error", 1}, {"build_timeout", 1}, {"crash", 1}}},
                {"pass_at_k", {{"1", 0.4}, {"3", nullptr}}}};
  json s = slice;
  s["ks"] = {1, 3};
  s["groups"] = {{"alpha", slice}, {"beta", slice}};
  s["difficulties"] = {{"easy", slice}};
  s["skipped_reasons"] = {{"no_gpu", 2}};
  s["timing"] = {{"wall_s", 12.5}};
  const std::string t = terminal_table(s);
  EXPECT_NE(t.find("pass@1"), std::string::npos) << t;
  EXPECT_NE(t.find("pass@3"), std::string::npos) << t;
  EXPECT_NE(t.find("40.0%"), std::string::npos) << t;
  EXPECT_NE(t.find("n/a"), std::string::npos) << t;
  EXPECT_NE(t.find("  alpha"), std::string::npos) << t;
  EXPECT_EQ(t.find("by difficulty"), std::string::npos) << "a single difficulty adds no rows\n"
                                                        << t;
  EXPECT_NE(t.find("skipped: no_gpu 2"), std::string::npos) << t;
  EXPECT_NE(t.find("wall 12.5 s"), std::string::npos) << t;
  // build_error and build_timeout share the "build" column: the all row reads 2 there.
  const std::string all =
      t.substr(t.find("\nall") + 1, t.find('\n', t.find("\nall") + 1) - t.find("\nall") - 1);
  EXPECT_NE(all.find("       2       2"), std::string::npos) << all;  // pass 2, build 2
  EXPECT_EQ(t.find("geomean"), std::string::npos) << "no performance line without --benchmark";
  s["performance"] = {{"timed", 3},
                      {"solutions", 5},
                      {"geomean_speedup", 1.25},
                      {"fast_p", {{"1", 0.4}, {"1.5", 0.2}, {"2", 0.0}}},
                      {"fast_p_confident", {{"1", 0.2}, {"1.5", 0.0}, {"2", 0.0}}}};
  EXPECT_NE(terminal_table(s).find("geomean speedup 1.250×; fast_1 40.0% (20.0% sure)"),
            std::string::npos)
      << terminal_table(s);
}

TEST(ReportTerminalTable, ABuildOnlyRunSaysSoAboveTheTable) {
  json s = {{"ks", {1}}, {"verdicts", {{"pass", 3}}}, {"solutions", 3}};
  EXPECT_EQ(terminal_table(s).find("BUILD ONLY"), std::string::npos);
  s["build_only"] = true;
  EXPECT_EQ(terminal_table(s).rfind("BUILD ONLY: every solution was built and none was tested", 0),
            0u)
      << terminal_table(s);
}

}  // namespace
}  // namespace kjudge::report
