#include "eval/workspace.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace kjudge {
namespace {

Problem problem() {
  Problem p;
  p.task_id = "t/1";
  p.context_files = {{"include/a.h", "context"}};
  p.test_files = {{"test/main.cu", "hidden"}};
  return p;
}

TEST(Workspace, SafePaths) {
  EXPECT_TRUE(is_safe_relative_path("solution.cu"));
  EXPECT_TRUE(is_safe_relative_path("src/kernels/a.cu"));
  EXPECT_FALSE(is_safe_relative_path(""));
  EXPECT_FALSE(is_safe_relative_path("/tmp/evil.cu"));
  EXPECT_FALSE(is_safe_relative_path("../escape.cu"));
  EXPECT_FALSE(is_safe_relative_path("a/../../escape.cu"));
  EXPECT_FALSE(is_safe_relative_path("a/.."));
  EXPECT_FALSE(is_safe_relative_path("dir/"));
  EXPECT_FALSE(is_safe_relative_path("."));
}

TEST(Workspace, ContextTestsAndSolutionFilesLandWhereTheySay) {
  testing::TempDir d;
  Problem p = problem();
  Solution s;
  s.files = {{"solution.cu", "mine"}, {"extra/helper.h", "h"}};
  materialize_workspace(d / "ws", p, s);
  EXPECT_EQ(testing::read_text(d / "ws/solution.cu"), "mine");
  EXPECT_EQ(testing::read_text(d / "ws/include/a.h"), "context");
  EXPECT_EQ(testing::read_text(d / "ws/test/main.cu"), "hidden");
  EXPECT_EQ(testing::read_text(d / "ws/extra/helper.h"), "h");
  EXPECT_THROW(materialize_workspace(d / "ws", p, s), std::runtime_error)
      << "never reuse a workspace";
}

}  // namespace
}  // namespace kjudge
