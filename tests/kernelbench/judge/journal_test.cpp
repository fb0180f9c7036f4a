// results.jsonl and --resume: each result on disk as it is judged, read back for the summary,
// a torn last line dropped, a foreign or repeated line refused naming it.
#include "kernelbench/judge/journal.h"

#include <gtest/gtest.h>

#include "core/input_error.h"
#include "test_util.h"

namespace kjudge::kernelbench {
namespace {

using kjudge::testing::read_text;
using kjudge::testing::TempDir;
using kjudge::testing::write_text;

struct Fixture {
  Problem p;
  std::vector<Solution> sols;
  Fixture() {
    p.level = 1;
    p.id = 3;
    p.file = "3_X.py";
    for (int s = 0; s < 3; ++s) {
      Solution x;
      x.problem = &p;
      x.sample = s;
      sols.push_back(x);
    }
  }
};

TEST(KernelBenchJournal, ResultsAreKeptAndReadBackOnResume) {
  TempDir dir;
  Fixture f;
  {
    Journal j(dir.path(), f.sols);
    EXPECT_EQ(j.todo(f.sols).size(), 3u);
    j.append(not_run(f.sols[1], Verdict::compile_error, "no code", {}, {}));
  }
  Journal again(dir.path(), f.sols);
  ASSERT_EQ(again.earlier().size(), 1u);
  EXPECT_EQ(again.earlier()[0].sample, 1);
  EXPECT_EQ(again.earlier()[0].verdict, Verdict::compile_error);
  const auto todo = again.todo(f.sols);
  ASSERT_EQ(todo.size(), 2u);
  EXPECT_EQ(todo[0]->sample, 0);
  EXPECT_EQ(todo[1]->sample, 2);
}

TEST(KernelBenchJournal, ATornLastLineIsDroppedAForeignOneRefused) {
  TempDir dir;
  Fixture f;
  {
    Journal j(dir.path(), f.sols);
    j.append(not_run(f.sols[0], Verdict::compile_error, "x", {}, {}));
  }
  const std::string whole = read_text(dir / "results.jsonl");
  write_text(dir / "results.jsonl", whole + "{\"kind\": \"kjudge-kernel");
  EXPECT_EQ(Journal(dir.path(), f.sols).earlier().size(), 1u);
  write_text(dir / "results.jsonl", whole + whole);
  try {
    Journal j(dir.path(), f.sols);
    FAIL() << "a line twice was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("judged twice"), std::string::npos) << e.what();
  }
  std::string other = whole;
  other.replace(other.find("L1/3#0"), 6, "L9/9#0");
  write_text(dir / "results.jsonl", other + whole);
  try {
    Journal j(dir.path(), f.sols);
    FAIL() << "a foreign line was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("none of this run's solutions"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find(":1"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kjudge::kernelbench
