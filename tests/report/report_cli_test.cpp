// `kjudge report` through the binary: its outputs, Markdown on stdout by default, --compare,
// exit codes for bad input; and the compact table that evaluate and validate print at the end.
#include <gtest/gtest.h>

#include <filesystem>

#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;
const fs::path kSource = KJUDGE_SOURCE_DIR;
const std::string kBin = KJUDGE_BINARY;
const std::string kRunA = (kSource / "tests/fixtures/report/run-a").string();
const std::string kRunB = (kSource / "tests/fixtures/report/run-b").string();

testing::CmdResult sh(const std::string& command) {
  return testing::run_capture("cd '" + kSource.string() + "' && " + command);
}

bool has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

TEST(ReportCli, WritesHtmlAndMarkdown) {
  testing::TempDir dir;
  auto r = sh(kBin + " report " + kRunA + " --html " + (dir / "out/r.html").string() + " --md " +
              (dir / "r.md").string());
  ASSERT_EQ(r.rc, 0) << r.out;
  const std::string html = testing::read_text(dir / "out/r.html");
  EXPECT_TRUE(html.rfind("<!doctype html>", 0) == 0);
  EXPECT_TRUE(has(html, "<h4>Prompt</h4>"))
      << "run.json's examples/pack, found from the source dir";
  EXPECT_TRUE(has(testing::read_text(dir / "r.md"), "**pass@1 45.0%**"));
  EXPECT_FALSE(has(r.out, "# kjudge report")) << "Markdown goes to the file, not stdout";
}

TEST(ReportCli, PrintsMarkdownWithoutOutputOptions) {
  auto r = sh("( " + kBin + " report " + kRunA + " 2>/dev/null )");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_TRUE(r.out.rfind("# kjudge report: run-a", 0) == 0) << r.out.substr(0, 200);
}

TEST(ReportCli, ComparesTwoRuns) {
  testing::TempDir dir;
  auto r = sh(kBin + " report --compare " + kRunA + " " + kRunB + " --html " +
              (dir / "c.html").string());
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_TRUE(has(testing::read_text(dir / "c.html"), "p = 0.625"));
  auto m = sh(kBin + " report --compare " + kRunA + " " + kRunB);
  EXPECT_TRUE(has(m.out, "Exact McNemar test (two-sided): p = 0.625")) << m.out;
}

TEST(ReportCli, BadInputExitsTwoNamingWhere) {
  auto none = sh(kBin + " report /nonexistent/run");
  EXPECT_EQ(none.rc, 2) << none.out;
  EXPECT_TRUE(has(none.out, "/nonexistent/run")) << none.out;

  testing::TempDir dir;
  testing::write_text(dir / "run/results.jsonl",
                      testing::read_text(fs::path(kRunA) / "results.jsonl") + "not json\n{}\n");
  auto bad = sh(kBin + " report " + (dir / "run").string());
  EXPECT_EQ(bad.rc, 2) << bad.out;
  EXPECT_TRUE(has(bad.out, "results.jsonl:20")) << bad.out;

  auto one = sh(kBin + " report --compare " + kRunA);
  EXPECT_EQ(one.rc, 2) << one.out;
  EXPECT_TRUE(has(one.out, "two run directories")) << one.out;
  auto two = sh(kBin + " report " + kRunA + " " + kRunB);
  EXPECT_EQ(two.rc, 2) << two.out;
}

TEST(ReportCli, ValidatePrintsTheCompactTableOnStderrAndKeepsJsonStdoutPure) {
  if (sh("command -v nvcc || test -x /usr/local/cuda/bin/nvcc").rc != 0)
    GTEST_SKIP() << "nvcc not installed";
  testing::TempDir dir;
  const std::string cmd = "PATH=$PATH:/usr/local/cuda/bin " + kBin +
                          " validate examples/pack --task example/prefix_sum --task example/saxpy"
                          " --cache-dir " +
                          (fs::path(kBin).parent_path() / "test-cache").string() + " --work-dir " +
                          (dir / "work").string() + " --out " + (dir / "v").string() + " --json";
  // stderr to a file, stdout alone through the pipe.
  auto r = sh("( " + cmd + " 2>" + (dir / "stderr").string() + " )");
  ASSERT_EQ(r.rc, 0) << r.out << testing::read_text(dir / "stderr");
  const std::string err = testing::read_text(dir / "stderr");
  EXPECT_TRUE(has(err, "problems solutions    pass   build    fail timeout")) << err;
  EXPECT_TRUE(has(err, "kjudge report " + (dir / "v").string())) << err;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << "stdout holds the summary JSON and nothing else:\n" << r.out;
}

}  // namespace
}  // namespace kjudge
