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

}  // namespace
}  // namespace kjudge
