#include "eval/journal.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace kjudge {
namespace {

GradedSolution graded(const std::string& task, int sample, Verdict v) {
  GradedSolution g;
  g.task_id = task;
  g.sample = sample;
  g.verdict = v;
  g.build.ran = true;
  g.build.log = "line1\nline2 \"quoted\"\n";
  return g;
}

TEST(Journal, AppendsAndReadsBack) {
  testing::TempDir d;
  {
    std::vector<GradedSolution> existing;
    Journal j(d / "r.jsonl", &existing);
    EXPECT_TRUE(existing.empty());
    j.append(graded("a/1", 0, Verdict::pass));
    j.append(graded("a/1", 1, Verdict::test_fail));
  }
  std::vector<GradedSolution> existing;
  Journal j(d / "r.jsonl", &existing);
  ASSERT_EQ(existing.size(), 2u);
  EXPECT_EQ(existing[1].verdict, Verdict::test_fail);
  EXPECT_EQ(existing[0].build.log, "line1\nline2 \"quoted\"\n");
}

// Issue 34: a resumed run keeps every run of --repeat and what compute-sanitizer found, so that
// its summary counts them as the uninterrupted run's would.
TEST(Journal, RepeatsAndSanitizerFindingsSurviveAResume) {
  testing::TempDir d;
  GradedSolution g = graded("a/1", 0, Verdict::sanitizer_error);
  g.repeats = {{Verdict::pass, "", 0, 0, false, 0.5},
               {Verdict::test_timeout, "test did not finish within 5 s", -1, 0, true, 5.0}};
  SanitizerRecord s;
  s.tool = "memcheck";
  s.outcome = SanitizerOutcome::errors;
  s.errors = 2;
  s.report = {"Invalid __global__ read of size 4 bytes", "Address 0x10 is out of bounds"};
  s.detail = "memcheck: 2 errors: Invalid __global__ read of size 4 bytes";
  s.step.ran = true;
  s.step.exit_code = 86;
  s.step.log = "========= ERROR SUMMARY: 2 errors\n";
  g.sanitizer = {s};
  {
    std::vector<GradedSolution> existing;
    Journal j(d / "r.jsonl", &existing);
    j.append(g);
  }
  const auto line = testing::read_jsonl(d / "r.jsonl").at(0);
  EXPECT_EQ(line["flaky"], true);
  EXPECT_EQ(line["repeats"][1]["verdict"], "test_timeout");
  EXPECT_EQ(line["sanitizer"][0]["outcome"], "errors");
  std::vector<GradedSolution> existing;
  Journal j(d / "r.jsonl", &existing);
  ASSERT_EQ(existing.size(), 1u);
  const GradedSolution& back = existing[0];
  EXPECT_EQ(back.verdict, Verdict::sanitizer_error);
  ASSERT_EQ(back.repeats.size(), 2u);
  EXPECT_EQ(back.repeats[1].verdict, Verdict::test_timeout);
  EXPECT_TRUE(back.repeats[1].timed_out);
  EXPECT_EQ(back.repeats[1].detail, "test did not finish within 5 s");
  EXPECT_TRUE(back.flaky());
  ASSERT_EQ(back.sanitizer.size(), 1u);
  EXPECT_EQ(back.sanitizer[0].tool, "memcheck");
  EXPECT_EQ(back.sanitizer[0].outcome, SanitizerOutcome::errors);
  EXPECT_EQ(back.sanitizer[0].errors, 2);
  EXPECT_EQ(back.sanitizer[0].report, s.report);
  EXPECT_EQ(back.sanitizer[0].step.exit_code, 86);
  EXPECT_EQ(back.sanitizer[0].step.log, s.step.log);
}

TEST(Journal, DropsATornLastLineAndAppendsCleanly) {
  testing::TempDir d;
  {
    Journal j(d / "r.jsonl", nullptr);
    j.append(graded("a/1", 0, Verdict::pass));
  }
  // What kill -9 in the middle of a write leaves behind.
  std::string text = testing::read_text(d / "r.jsonl");
  testing::write_text(d / "r.jsonl", text + "{\"task_id\":\"a/2\",\"sam");
  {
    std::vector<GradedSolution> existing;
    Journal j(d / "r.jsonl", &existing);
    ASSERT_EQ(existing.size(), 1u);
    j.append(graded("a/2", 0, Verdict::crash));
  }
  std::vector<GradedSolution> existing;
  Journal j(d / "r.jsonl", &existing);
  ASSERT_EQ(existing.size(), 2u);
  EXPECT_EQ(existing[1].task_id, "a/2");
  EXPECT_EQ(existing[1].verdict, Verdict::crash);
}

TEST(Journal, RefusesAFileThatIsNotAJournal) {
  testing::TempDir d;
  testing::write_text(d / "r.jsonl", "hello\nworld\n");
  EXPECT_THROW(Journal(d / "r.jsonl", nullptr), std::runtime_error);
}

// The generic journal under both: what its owner's reader refuses, a line it never sees.
TEST(JsonLinesJournal, HandsBackCompleteLinesAndCutsWhatIsNotWhole) {
  testing::TempDir d;
  const auto path = d / "j.jsonl";
  {
    JsonLinesJournal j(path, nullptr);
    j.append(nlohmann::json{{"n", 1}});
    j.append(nlohmann::ordered_json{{"z", 2}, {"a", "bad \xff byte"}});  // replaced, not thrown
  }
  const std::string whole = testing::read_text(path);
  EXPECT_EQ(whole.find("{\"z\":2,\"a\":"), whole.find('\n') + 1) << whole;  // order kept
  // A last line without its newline is never handed to the reader, even when it parses.
  testing::write_text(path, whole + "\n{\"n\": 3}");
  std::vector<std::pair<int, std::string>> seen;
  auto collect = [&](const std::string& line, int lineno) { seen.emplace_back(lineno, line); };
  { JsonLinesJournal j(path, collect); }
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].first, 1);
  EXPECT_EQ(seen[1].first, 2);  // the blank line after it is skipped
  EXPECT_EQ(testing::read_text(path), whole + "\n");

  // A last line the reader refuses is dropped as torn; one before others is an error.
  auto refuse_z = [](const std::string& line, int) {
    if (line.find("\"z\"") != std::string::npos) throw std::runtime_error("no z here");
  };
  testing::write_text(path, whole);
  { JsonLinesJournal j(path, refuse_z); }
  EXPECT_EQ(testing::read_text(path), whole.substr(0, whole.find('\n') + 1));
  testing::write_text(path, whole + "{\"n\": 4}\n");
  try {
    JsonLinesJournal j(path, refuse_z);
    ADD_FAILURE() << "no throw";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("j.jsonl:2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("no z here"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kjudge
