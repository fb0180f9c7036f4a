// `kjudge triton eval` end to end on the real data folder, with the fake runner standing in for
// torch (tests/fixtures/fake_triton_runner.py): the run directory's files, the exit codes, and
// solutions files that are wrong in one field each.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;
using kjudge::testing::run_capture;
using kjudge::testing::TempDir;
using nlohmann::json;

const fs::path kData = fs::path(KJUDGE_SOURCE_DIR "/../shared/datasets/tritonbench");
const std::string kFake = KJUDGE_SOURCE_DIR "/tests/fixtures/fake_triton_runner.py";

class TritonEvalCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::is_directory(kData)) GTEST_SKIP() << "shared dataset missing: " << kData;
  }
  std::string base() const {
    return std::string(KJUDGE_BINARY) + " triton eval " + kData.string() + " --runner " + kFake +
           " --python /usr/bin/python3 --sandbox none --out " + (dir_ / "run").string() + " ";
  }
  std::vector<json> lines(const std::string& file) const {
    std::vector<json> out;
    std::ifstream in(dir_ / "run" / file);
    for (std::string l; std::getline(in, l);) out.push_back(json::parse(l));
    return out;
  }
  TempDir dir_;
};

TEST_F(TritonEvalCli, SelfWritesTheRunDirectory) {
  auto r = run_capture(base() + "--self --operator add_example --operator torch.div --json");
  ASSERT_EQ(r.rc, 0) << r.out;
  json summary = json::parse(r.out.substr(r.out.find('{')));
  EXPECT_EQ(summary["kind"], "kjudge-triton-summary");
  EXPECT_EQ(summary["solutions"], "self");
  EXPECT_EQ(summary["totals"]["judged"], 2);
  EXPECT_EQ(summary["totals"]["exec_ok"], 2);
  EXPECT_EQ(summary["by_channel"]["T"]["call_accuracy"], 1.0);
  EXPECT_EQ(summary["env"]["torch"], "fake");
  std::vector<json> results = lines("results.jsonl");
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0]["operator"], "add_example");
  EXPECT_EQ(results[0]["verdict"], "pass");
  EXPECT_EQ(results[0]["comparison"]["compared"], 1);
  EXPECT_EQ(results[1]["channel"], "T");
  EXPECT_EQ(lines("references.jsonl").size(), 2u);
  EXPECT_TRUE(fs::exists(dir_ / "run/summary.json"));
  EXPECT_FALSE(fs::exists(dir_ / "run/work"));
}

TEST_F(TritonEvalCli, SolutionsWithSpeedupAndTheTable) {
  std::ofstream(dir_ / "sol.jsonl")
      << json{{"operator", "add_example"}, {"code", "#fake ok\n#fake time 0.5\n"}}.dump() << "\n\n"
      << json{{"file", "add_example.py"}, {"channel", "G"}, {"code", "#fake ok 9\n"}}.dump() << "\n"
      << json{{"operator", "torch.div"}, {"code", "#fake error\n"}, {"sample", 4}}.dump() << "\n";
  auto r =
      run_capture(base() + "--solutions " + (dir_ / "sol.jsonl").string() + " --speedup --reps 6");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("GROUP"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2.000 (1)"), std::string::npos) << r.out;  // G's speedup geomean
  std::vector<json> results = lines("results.jsonl");
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0]["verdict"], "pass");
  EXPECT_DOUBLE_EQ(results[0]["speedup"]["estimate"].get<double>(), 2.0);
  EXPECT_EQ(results[0]["origin"], (dir_ / "sol.jsonl").string() + ":1");
  EXPECT_EQ(results[1]["verdict"], "mismatch");
  EXPECT_EQ(results[1]["sample"], 1);
  EXPECT_EQ(results[2]["verdict"], "call_error");
  EXPECT_EQ(results[2]["sample"], 4);
  EXPECT_EQ(results[2]["exception_type"], "NameError");
  EXPECT_EQ(lines("references.jsonl").size(), 2u);  // one per operator
}

TEST_F(TritonEvalCli, BadSolutionsNameTheLineAndField) {
  auto expect_usage = [&](const std::string& content, const std::string& where,
                          const std::string& what) {
    std::ofstream(dir_ / "bad.jsonl") << content;
    auto r = run_capture(base() + "--solutions " + (dir_ / "bad.jsonl").string());
    EXPECT_EQ(r.rc, 2) << r.out;
    EXPECT_NE(r.out.find(where), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(what), std::string::npos) << r.out;
  };
  expect_usage("{\"operator\": \"add_example\", \"code\": \"x\"}\n{oops\n", "bad.jsonl:2",
               "not JSON");
  expect_usage("{\"operator\": \"nope\", \"code\": \"x\"}\n", "bad.jsonl:1", "no operator 'nope'");
  expect_usage("{\"operator\": \"add_example\"}\n", "code", "missing");
  expect_usage("{\"code\": \"x\"}\n", "operator", "missing");
  expect_usage("{\"operator\": \"add_example\", \"code\": 5}\n", "code", "not a string");
  expect_usage("{\"operator\": \"add_example\", \"channel\": \"X\", \"code\": \"\"}\n", "channel",
               "not G or T");
  expect_usage("{\"operator\": \"add_example\", \"channel\": \"T\", \"code\": \"\"}\n", "operator",
               "(channel T)");
  expect_usage(
      "{\"operator\": \"add_example\", \"code\": \"\", \"sample\": 1}\n"
      "{\"operator\": \"add_example\", \"code\": \"\", \"sample\": 1}\n",
      "bad.jsonl:2", "sample 1 of add_example given twice");

  auto r = run_capture(base() + "--self --solutions " + (dir_ / "bad.jsonl").string());
  EXPECT_EQ(r.rc, 2) << r.out;
  r = run_capture(base() + "--self --operator no_such_op");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("no operator 'no_such_op'"), std::string::npos) << r.out;
}

TEST_F(TritonEvalCli, AnInterpreterThatDoesNotRunIsAnEnvironmentError) {
  auto r = run_capture(std::string(KJUDGE_BINARY) + " triton eval " + kData.string() +
                       " --self --operator add_example --python /nonexistent/python3 --out " +
                       (dir_ / "run").string());
  EXPECT_EQ(r.rc, 3) << r.out;
  EXPECT_NE(r.out.find("/nonexistent/python3"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace kjudge
