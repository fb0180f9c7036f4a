// A run as an Inspect eval log: one sample per graded solution keyed (task_id, sample + 1),
// the verdict as C / I / N, the speedup where it was timed, the run's metadata, and a file name
// that `inspect view` lists. (tests/export/inspect_export_test.py reads it with inspect_ai.)
#include "export/inspect_log.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "export/inspect_sample.h"
#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kRunA = fs::path(KJUDGE_SOURCE_DIR) / "tests/fixtures/report/run-a";

class InspectLog : public ::testing::Test {
 protected:
  // The fixture names examples/pack relative to the source folder.
  void SetUp() override {
    cwd_ = fs::current_path();
    fs::current_path(KJUDGE_SOURCE_DIR);
  }
  void TearDown() override { fs::current_path(cwd_); }
  fs::path cwd_;
};

TEST_F(InspectLog, EverySolutionIsASampleScoredByItsVerdict) {
  const report::RunData run = report::load_run(kRunA);
  const auto log = exports::inspect_eval_log(run, {});
  EXPECT_EQ(log["version"], 2);
  EXPECT_EQ(log["status"], "success");
  EXPECT_EQ(log["eval"]["task"], "pack");
  EXPECT_EQ(log["eval"]["model"], "solutions/solutions");
  EXPECT_EQ(log["eval"]["created"], "2026-11-23T01:49:07+00:00");
  EXPECT_EQ(log["eval"]["metadata"]["kjudge_run"]["jobs_fingerprint"], run.run["jobs_fingerprint"]);
  EXPECT_EQ(log["eval"]["config"]["epochs"], 4) << "samples 0..3";
  ASSERT_EQ(log["samples"].size(), run.results.size());
  std::set<std::pair<std::string, int>> keys;
  int c = 0, i = 0, n = 0, speedups = 0;
  for (std::size_t k = 0; k < run.results.size(); ++k) {
    const json& row = run.results[k];
    const auto& s = log["samples"][k];
    EXPECT_EQ(s["id"], row["task_id"]);
    EXPECT_EQ(s["epoch"], row["sample"].get<int>() + 1);
    keys.insert({s["id"].get<std::string>(), s["epoch"].get<int>()});
    const std::string v = s["scores"]["verdict"]["value"];
    EXPECT_EQ(s["scores"]["verdict"]["answer"], row["verdict"]);
    EXPECT_EQ(s["scores"]["verdict"]["explanation"], row.value("detail", ""));
    if (row["verdict"] == "pass")
      EXPECT_EQ(v, "C");
    else if (row["verdict"] == "skipped" || row["verdict"] == "judge_error")
      EXPECT_EQ(v, "N");
    else
      EXPECT_EQ(v, "I");
    c += v == "C";
    i += v == "I";
    n += v == "N";
    EXPECT_EQ(s["metadata"]["verdict"], row["verdict"]);
    EXPECT_FALSE(s["input"].get<std::string>().empty());
    if (s["scores"].contains("speedup")) {
      ++speedups;
      const json& p = run.perf.at({row["task_id"].get<std::string>(), row["sample"].get<int>()});
      EXPECT_DOUBLE_EQ(s["scores"]["speedup"]["value"].get<double>(), p["speedup"]["estimate"]);
      EXPECT_DOUBLE_EQ(s["scores"]["speedup"]["metadata"]["low"].get<double>(),
                       p["speedup"]["low"]);
    }
  }
  EXPECT_EQ(keys.size(), run.results.size()) << "(id, epoch) is unique";
  EXPECT_EQ(speedups, 7);
  EXPECT_EQ(n, 1) << "the fixture's one skipped solution";
  const auto& verdict = log["results"]["scores"][0];
  EXPECT_EQ(verdict["name"], "verdict");
  EXPECT_EQ(verdict["scored_samples"], c + i);
  EXPECT_DOUBLE_EQ(verdict["metrics"]["accuracy"]["value"].get<double>(), double(c) / (c + i));
  EXPECT_DOUBLE_EQ(verdict["metrics"]["pass@1"]["value"].get<double>(),
                   run.summary["pass_at_k"]["1"].get<double>());
  EXPECT_EQ(log["results"]["scores"][1]["name"], "speedup");
}

TEST_F(InspectLog, ThePromptAndTheSolutionFilesAreTheConversation) {
  const report::RunData run = report::load_run(kRunA);
  const auto log = exports::inspect_eval_log(run, {});
  const auto& s = log["samples"][0];
  ASSERT_EQ(s["messages"].size(), 2u) << s["messages"].dump();
  EXPECT_EQ(s["messages"][0]["role"], "user");
  EXPECT_EQ(s["messages"][0]["content"], run.problems.at(s["id"]).prompt);
  EXPECT_EQ(s["messages"][1]["role"], "assistant");
  const std::string answer = s["messages"][1]["content"];
  EXPECT_NE(answer.find("`solution.cu`"), std::string::npos) << answer;
  EXPECT_EQ(s["output"]["completion"], answer);
}

TEST_F(InspectLog, LogsAreCutToLogBytes) {
  const report::RunData run = report::load_run(kRunA);
  exports::InspectOptions o;
  o.log_bytes = 16;
  for (const auto& s : exports::inspect_eval_log(run, o)["samples"])
    EXPECT_LE(s["metadata"]["test"]["log"].get<std::string>().size(), 200u);
  o.log_bytes = 0;
  EXPECT_FALSE(exports::inspect_eval_log(run, o)["samples"][0]["metadata"]["test"].contains("log"));
}

TEST_F(InspectLog, AnUnfinishedRunIsCancelledAndTheNameIsInspects) {
  testing::TempDir dir;
  testing::write_text(
      dir / "results.jsonl",
      json({{"task_id", "a_b/c"}, {"sample", 0}, {"verdict", "pass"}}).dump() + "\n");
  testing::write_text(dir / "run.json", json({{"command", "evaluate"},
                                              {"problems", "packs/my_pack.tar.gz"},
                                              {"started_at", "2026-01-02T03:04:05Z"}})
                                            .dump());
  const report::RunData run = report::load_run(dir.path());
  const auto log = exports::inspect_eval_log(run, {});
  EXPECT_EQ(log["status"], "cancelled") << "no summary.json: the run did not finish";
  EXPECT_EQ(log["eval"]["task"], "my-pack") << "no '_': Inspect splits its file names on it";
  const std::string name = exports::inspect_log_file_name(log);
  EXPECT_TRUE(
      std::regex_match(name, std::regex(R"(^\d{4}-\d{2}-\d{2}T\d{2}[:-]\d{2}[:-]\d{2}.*$)")))
      << name;
  EXPECT_TRUE(name.starts_with("2026-01-02T03-04-05+00-00_my-pack_")) << name;
  EXPECT_TRUE(name.ends_with(".json"));
}

}  // namespace
}  // namespace kjudge
