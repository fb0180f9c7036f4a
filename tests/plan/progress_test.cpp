#include "plan/progress.h"

#include <gtest/gtest.h>

#include <cstdio>

namespace kjudge::plan {
namespace {

TEST(Progress, BarShowsCountsAndEta) {
  std::string line = Progress::bar_line(25, 100, 20, 4, 1, 50.0, 120);
  EXPECT_NE(line.find("25/100"), std::string::npos) << line;
  EXPECT_NE(line.find("pass 20"), std::string::npos);
  EXPECT_NE(line.find("fail 4"), std::string::npos);
  // 25 done in 50 s: 75 left take 150 s.
  EXPECT_NE(line.find("ETA 2m30s"), std::string::npos) << line;
  EXPECT_NE(Progress::bar_line(0, 10, 0, 0, 0, 0, 80).find("ETA ?"), std::string::npos);
  EXPECT_NE(Progress::bar_line(10, 10, 10, 0, 0, 9, 80).find("ETA 0s"), std::string::npos);
}

TEST(Progress, PlainLinesWhenNotATerminal) {
  std::FILE* f = std::tmpfile();
  {
    Progress p(2, 0, true, f);
    GradedSolution g;
    g.task_id = "CUDA/1";
    g.verdict = Verdict::skipped;
    g.skip_code = "no_gpu";
    p.update(g);
    p.finish();
  }
  std::rewind(f);
  char buf[256] = {};
  std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  std::string out(buf, n);
  EXPECT_EQ(out, "[1/2] CUDA/1#0 skipped (no_gpu) 0.0s\n");
}

}  // namespace
}  // namespace kjudge::plan
