// `kjudge export` through the binary: the CSV to a file or stdout, the Inspect log into a
// folder under Inspect's own kind of name, and exit 2 naming what is wrong.
#include <gtest/gtest.h>

#include <filesystem>

#include "export/results_csv.h"
#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;
const fs::path kSource = KJUDGE_SOURCE_DIR;
const std::string kBin = KJUDGE_BINARY;
const std::string kRunA = (kSource / "tests/fixtures/report/run-a").string();

testing::CmdResult sh(const std::string& command) {
  return testing::run_capture("cd '" + kSource.string() + "' && " + command);
}

TEST(ExportCli, WritesTheCsvToAFileOrStdout) {
  testing::TempDir dir;
  const auto r = sh(kBin + " export " + kRunA + " --csv " + (dir / "out/run.csv").string());
  ASSERT_EQ(r.rc, 0) << r.out;
  const std::string csv = testing::read_text(dir / "out/run.csv");
  EXPECT_EQ(csv, exports::results_csv(report::load_run(kRunA)));
  const auto out = sh(kBin + " export " + kRunA + " --csv - 2>/dev/null");
  ASSERT_EQ(out.rc, 0);
  EXPECT_EQ(out.out, csv);
}

TEST(ExportCli, WritesTheInspectLogIntoAFolder) {
  testing::TempDir dir;
  fs::create_directories(dir / "logs");
  const auto r = sh(kBin + " export " + kRunA + " --inspect " + (dir / "logs").string() +
                    " --csv " + (dir / "r.csv").string());
  ASSERT_EQ(r.rc, 0) << r.out;
  std::vector<fs::path> logs;
  for (const auto& e : fs::directory_iterator(dir / "logs")) logs.push_back(e.path());
  ASSERT_EQ(logs.size(), 1u);
  EXPECT_TRUE(logs[0].filename().string().starts_with("2026-11-23T01-49-07+00-00_pack_"));
  const auto log = nlohmann::json::parse(testing::read_text(logs[0]));
  EXPECT_EQ(log["samples"].size(), 19u);
  EXPECT_TRUE(fs::exists(dir / "r.csv"));
  EXPECT_NE(r.out.find("inspect view --log-dir"), std::string::npos) << r.out;
  // A file name is taken as it is.
  ASSERT_EQ(sh(kBin + " export " + kRunA + " --inspect " + (dir / "x.json").string()).rc, 0);
  EXPECT_TRUE(fs::exists(dir / "x.json"));
}

TEST(ExportCli, BadInputExitsTwo) {
  const auto nothing = sh(kBin + " export " + kRunA);
  EXPECT_EQ(nothing.rc, 2) << nothing.out;
  EXPECT_NE(nothing.out.find("--csv OUT, --inspect OUT"), std::string::npos) << nothing.out;
  testing::TempDir dir;
  const auto no_run = sh(kBin + " export " + dir.path().string() + " --csv -");
  EXPECT_EQ(no_run.rc, 2) << no_run.out;
  EXPECT_NE(no_run.out.find("no results.jsonl"), std::string::npos) << no_run.out;
  testing::write_text(dir / "results.jsonl", "{\"task_id\": \"a\"}\n");
  const auto bad = sh(kBin + " export " + dir.path().string() + " --csv -");
  EXPECT_EQ(bad.rc, 2) << bad.out;
  EXPECT_NE(bad.out.find("results.jsonl:1"), std::string::npos) << bad.out;
}

}  // namespace
}  // namespace kjudge
