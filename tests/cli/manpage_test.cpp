// kjudge man (issue 38): kjudge(1) from the command tree, every command in it, and roff that
// groff reads without a warning.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "test_util.h"

namespace kjudge {
namespace {

TEST(ManPage, NamesEveryCommandAndIsCleanRoff) {
  testing::TempDir d;
  const auto page = d.path() / "kjudge.1";
  auto r = testing::run_capture(std::string(KJUDGE_BINARY) + " man > " + page.string());
  ASSERT_EQ(r.rc, 0) << r.out;
  std::ifstream in(page);
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text.rfind(".TH KJUDGE 1 ", 0), 0u) << text.substr(0, 200);
  EXPECT_NE(text.find(".SH NAME\nkjudge \\- judges GPU kernel code"), std::string::npos);
  for (const char* s : {".SS \"kjudge evaluate\"", ".SS \"kjudge task run FOLDER SUBMISSION\"",
                        ".SS \"kjudge users revoke NAME\"", "\\fB\\-\\-workers\\fR \\fIINT",
                        ".SH EXIT STATUS", "KJUDGE_TOKEN"})
    EXPECT_NE(text.find(s), std::string::npos) << s;
  EXPECT_EQ(text.find("solutions_datapack"), std::string::npos) << "hidden aliases stay out";
  if (testing::run_capture("command -v groff").rc != 0) GTEST_SKIP() << "no groff";
  auto g = testing::run_capture("groff -man -Tutf8 -ww -z " + page.string());
  EXPECT_EQ(g.rc, 0) << g.out;
  EXPECT_EQ(g.out, "") << "groff's warnings";
}

}  // namespace
}  // namespace kjudge
