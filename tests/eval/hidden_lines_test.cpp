#include "eval/hidden_lines.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;

Problem with_tests() {
  Problem p;
  p.task_id = "t/1";
  p.test_files = {{"test/main.cu",
                   "#include \"k.h\"\nint main() {\n\tassert(h_out[i] == secret_value(i));\n"
                   "  return 0;\n}\n"},
                  {"test/helper.cuh", "__device__ float secret_scale = 0.125f;\n"},
                  {"test/check.py", "assert torch.allclose(out, ref, atol=1e-3)\n"},
                  {"test/golden.bin", "golden values"}};
  return p;
}

TEST(HiddenLines, ALineThatReproducesATestLineIsReplaced) {
  const HiddenLines hidden(with_tests());
  EXPECT_EQ(hidden.redact("x.cu(3): error\n    assert(h_out[i] == secret_value(i));\n  ^\n"),
            std::string("x.cu(3): error\n") + kHiddenLineMarker + "\n  ^\n");
  // Inside a longer line, re-indented, with runs of spaces or tabs: still the test's line.
  EXPECT_EQ(hidden.redact("main.cu:3: Assertion `assert(h_out[i]  ==\tsecret_value(i));` failed"),
            kHiddenLineMarker);
  EXPECT_EQ(hidden.redact("__device__    float secret_scale = 0.125f;"), kHiddenLineMarker);
  // Every file of the tests counts, whatever its kind.
  EXPECT_EQ(hidden.redact("assert torch.allclose(out, ref, atol=1e-3)\n"),
            std::string(kHiddenLineMarker) + "\n");
}

TEST(HiddenLines, WhatIsNotATestLineStays) {
  const HiddenLines hidden(with_tests());
  // Short lines (under 12 characters) are in every program; the program's own words are what a
  // submitter needs.
  for (const std::string& log :
       {std::string("  return 0;\n"), std::string("int k = 0;\n"),
        std::string("mismatch at 17: got 3.5, expected 4.0\nTest passed!"), std::string(""),
        std::string("\n\n"), std::string("no newline at the end")})
    EXPECT_EQ(hidden.redact(log), log);
  EXPECT_TRUE(HiddenLines(Problem{}).empty());
  EXPECT_EQ(HiddenLines(Problem{}).redact("anything at all, however long\n"),
            "anything at all, however long\n");
}

TEST(HiddenLines, ABuiltWorkspaceKeepsNoCompiledTestSource) {
  testing::TempDir dir;
  const Problem p = with_tests();
  for (const auto& f : p.test_files) testing::write_text(dir / f.path, f.content);
  testing::write_text(dir / "solution.cu", "int solve();");
  EXPECT_EQ(remove_hidden_sources(dir.path(), p), 2);
  EXPECT_FALSE(fs::exists(dir / "test/main.cu"));
  EXPECT_FALSE(fs::exists(dir / "test/helper.cuh"));
  // What the test command itself reads stays: a Python test, data.
  EXPECT_TRUE(fs::exists(dir / "test/check.py"));
  EXPECT_TRUE(fs::exists(dir / "test/golden.bin"));
  EXPECT_TRUE(fs::exists(dir / "solution.cu"));
  EXPECT_EQ(remove_hidden_sources(dir.path(), p), 0);  // twice: nothing left to remove
}

}  // namespace
}  // namespace kjudge
