// `kjudge generate --kernelbench` and `kjudge run --kernelbench` end to end through the real
// binary, against the fake API server (tests/fake_llm_server.py): the prompt that goes over the
// wire for the data folder's real problem files (KernelBench's shape, the file verbatim), the
// solutions file that comes back and that `kjudge kernelbench eval --solutions` reads, the
// options refused before any request; and a run that judges the first answer while the model
// is still writing the second.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "fake_llm_server.h"
#include "gen/prompt.h"
#include "kernelbench/data/problems.h"
#include "kernelbench/generation/prompt.h"
#include "kernelbench/solutions/solutions.h"
#include "test_util.h"

namespace kjudge::kernelbench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kData = fs::path(KJUDGE_SOURCE_DIR "/../shared/datasets/kernelbench");
const std::string kBin = KJUDGE_BINARY;
const char* kKey = "sk-test-kernelbench-0123456789";
const std::string kRunner = KJUDGE_SOURCE_DIR "/python/kjudge_kernelbench_runner.py";

class KernelBenchGenerate : public ::testing::Test {
 protected:
  void start_server(const json& answers) {
    testing::write_text(dir_ / "answers.json", answers.dump());
    server_.start("--answers " + (dir_ / "answers.json").string() + " --log " +
                  (dir_ / "log.jsonl").string() + " --expect-key " + kKey);
  }
  std::string model_args(const std::string& out) const {
    return " --model fake-coder --base-url " + server_.base_url() + " --out " + out +
           " --env-file /nonexistent ";
  }
  std::string generate(const std::string& data, const std::string& out,
                       const std::string& extra) const {
    return "env OPENAI_API_KEY=" + std::string(kKey) + " " + kBin + " generate --kernelbench " +
           data + model_args(out) + "-q " + extra;
  }
  std::string run(const std::string& data, const std::string& out, const std::string& extra) const {
    return "env -u HF_HOME OPENAI_API_KEY=" + std::string(kKey) + " " + kBin +
           " run --kernelbench " + data + model_args(out) + "--python /usr/bin/python3 --runner " +
           kRunner + " --sandbox none --no-bytecode-cache --no-cupti -q " + extra;
  }
  std::size_t requests() const {
    return fs::exists(dir_ / "log.jsonl") ? testing::read_jsonl(dir_ / "log.jsonl").size() : 0;
  }

  testing::TempDir dir_;
  testing::FakeLlmServer server_;
};

TEST_F(KernelBenchGenerate, AsksWithTheRealProblemFileAndWritesSolutionsEvalReads) {
  if (!fs::is_directory(kData)) GTEST_SKIP() << "shared dataset missing: " << kData;
  // ReLU's answer holds two blocks (KernelBench takes the first); the matmul's none.
  start_server(json::array(
      {json::array({"torch.relu(x)",
                    "Sure.\n```python\nimport torch\nclass ModelNew(torch.nn.Module):\n    pass\n"
                    "```\nOr:\n```python\nsecond = 2\n```\n"}),
       json::array({"torch.matmul(A, B)", "I would rather not."})}));
  const fs::path out = dir_ / "gen";
  auto g = testing::run_capture(
      generate(kData.string(), out.string(), "--level 1 --task 19 --task L1/1 -n 2"));
  ASSERT_EQ(g.rc, 0) << g.out;

  // Over the wire: for each problem, the prompt made of its file as the data folder holds it.
  const Dataset d = load_kernelbench(kData, 1);
  const std::string relu_file = testing::read_text(kData / "level1/19_ReLU.py");
  const std::string matmul_file =
      testing::read_text(kData / "level1/1_Square_matrix_multiplication_.py");
  const auto log = testing::read_jsonl(dir_ / "log.jsonl");
  ASSERT_EQ(log.size(), 4u);
  int relu = 0, matmul = 0;
  for (const json& req : log) {
    const json& m = req["body"]["messages"];
    ASSERT_EQ(m.size(), 2u) << req.dump();
    EXPECT_EQ(m[0]["role"], "system");
    EXPECT_EQ(m[0]["content"], default_templates("kernelbench").system);
    const std::string user = m[1]["content"];
    EXPECT_NE(user.find("Name the optimized architecture ModelNew"), std::string::npos);
    EXPECT_NE(user.find("class ModelNew(nn.Module)"), std::string::npos) << "one-shot missing";
    if (user.find(relu_file) != std::string::npos) {
      ++relu;
      EXPECT_EQ(user, kernelbench_user_prompt(*d.find(1, 19)));
      EXPECT_EQ(user.find(matmul_file), std::string::npos);
    } else if (user.find(matmul_file) != std::string::npos) {
      ++matmul;
      EXPECT_EQ(user, kernelbench_user_prompt(*d.find(1, 1)));
    }
  }
  EXPECT_EQ(relu, 2);
  EXPECT_EQ(matmul, 2);

  // The solutions file, read by kernelbench eval's own reader.
  const fs::path file = out / "kernelbench-solutions.jsonl";
  const std::vector<Solution> sols = read_solutions(file, d);
  ASSERT_EQ(sols.size(), 4u);
  EXPECT_EQ(sols[0].key(), "L1/1#0");
  EXPECT_EQ(sols[0].code, "");
  EXPECT_EQ(sols[1].key(), "L1/1#1");
  EXPECT_EQ(sols[2].key(), "L1/19#0");
  EXPECT_EQ(sols[2].code, "import torch\nclass ModelNew(torch.nn.Module):\n    pass");
  EXPECT_EQ(sols[3].code, sols[2].code);
  const json s = json::parse(testing::read_text(out / "summary.json"));
  EXPECT_EQ(s["kind"], "kjudge-kernelbench-generation-summary");
  EXPECT_EQ(s["problems"], 2);
  EXPECT_EQ(s["answers"], 4);
  EXPECT_EQ(s["missing"], 0);
  EXPECT_EQ(s["unusable_answers"], 2);
  EXPECT_TRUE(fs::exists(out / "answers/L1_19-s1.md"));
  for (const auto& f : fs::recursive_directory_iterator(out)) {
    if (f.is_regular_file()) {
      EXPECT_EQ(testing::read_text(f.path()).find(kKey), std::string::npos) << f.path();
    }
  }

  // kjudge kernelbench eval judges the file as it is.
  auto e = testing::run_capture(
      "env -u HF_HOME " + kBin + " kernelbench eval " + kData.string() + " --solutions " +
      file.string() + " --python /usr/bin/python3" + " --runner " + kRunner +
      " --sandbox none --no-bytecode-cache --no-cupti -q --out " + (dir_ / "eval").string());
  const auto results = testing::read_jsonl(dir_ / "eval/results.jsonl");
  ASSERT_EQ(results.size(), 4u) << e.out;
  for (const json& r : results)
    if (r["key"].get<std::string>().starts_with("L1/1#")) {
      EXPECT_EQ(r["verdict"], "compile_error") << r.dump();
    }

  // --resume with everything there asks nothing.
  g = testing::run_capture(
      generate(kData.string(), out.string(), "--level 1 --task 19 --task L1/1 -n 2 --resume"));
  EXPECT_EQ(g.rc, 0) << g.out;
  EXPECT_EQ(requests(), 4u);
  // Another level on --resume is another run.
  g = testing::run_capture(generate(kData.string(), out.string(), "--level 2 --limit 1 --resume"));
  EXPECT_EQ(g.rc, 2) << g.out;
  EXPECT_NE(g.out.find("--level"), std::string::npos) << g.out;
  EXPECT_EQ(requests(), 4u);
}

TEST_F(KernelBenchGenerate, BadOptionsAreRefusedBeforeAnyRequest) {
  if (!fs::is_directory(kData)) GTEST_SKIP() << "shared dataset missing: " << kData;
  start_server(json::array());
  const std::string out = (dir_ / "gen").string();
  auto r = testing::run_capture(generate(kData.string(), out, "--task L1/999"));
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("names no KernelBench problem"), std::string::npos) << r.out;
  r = testing::run_capture(generate(kData.string(), out + "2", "--problems x.jsonl"));
  EXPECT_EQ(r.rc, 2) << r.out;
  r = testing::run_capture(generate(kData.string(), out + "3", "--turns 2"));
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("--turns"), std::string::npos) << r.out;
  r = testing::run_capture("env OPENAI_API_KEY=k " + kBin +
                           " generate --problems x.jsonl --model m --level 1");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("--kernelbench"), std::string::npos) << r.out;
  // kjudge run: ComputeEval's options are not silently dropped, nor KernelBench's without it.
  r = testing::run_capture(run(kData.string(), out + "4", "--benchmark"));
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("--benchmark"), std::string::npos) << r.out;
  r = testing::run_capture("env OPENAI_API_KEY=k " + kBin +
                           " run --problems x.jsonl --model m --trials 3");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("--trials is an option of --kernelbench"), std::string::npos) << r.out;
  EXPECT_EQ(requests(), 0u);
  EXPECT_NE(testing::run_capture(kBin + " run --help").out.find("--kernelbench"),
            std::string::npos);
}

// Two problems of a data folder written here: the first's answer takes the model four seconds
// (the fake server's stall directive, in the problem's code, reaches it through the prompt),
// the second's comes at once. Both answers lack a ModelNew, so the judge needs no torch.
TEST_F(KernelBenchGenerate, RunJudgesAnAnswerWhileTheModelIsStillAnswering) {
  const std::string tail =
      "import torch\nimport torch.nn as nn\n\nclass Model(nn.Module):\n    def forward(self, "
      "x):\n        return x\n\ndef get_inputs():\n    return [torch.rand(4)]\n\n"
      "def get_init_inputs():\n    return []\n";
  testing::write_text(dir_ / "kb/level1/1_Slow.py", "# SLOW_PROBLEM [[fake: stall 4]]\n" + tail);
  testing::write_text(dir_ / "kb/level1/2_Fast.py", "# FAST_PROBLEM\n" + tail);
  start_server(json::array({json::array({"SLOW_PROBLEM", "```python\nslow = 1\n```"}),
                            json::array({"FAST_PROBLEM", "```python\nfast = 2\n```"})}));
  const fs::path out = dir_ / "run";
  const std::string cmd = run((dir_ / "kb").string(), out.string(), "--workers 2");
  ASSERT_EQ(std::system(("(" + cmd + " > " + (dir_ / "out.txt").string() + " 2>&1; echo $? > " +
                         (dir_ / "rc").string() + ") &")
                            .c_str()),
            0);
  // The fast answer's verdict is journalled while the slow one is still being written.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  std::vector<json> results;
  while (std::chrono::steady_clock::now() < deadline && results.empty() &&
         !fs::exists(dir_ / "rc")) {
    if (fs::exists(out / "results.jsonl")) results = testing::read_jsonl(out / "results.jsonl");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(results.size(), 1u) << testing::read_text(dir_ / "out.txt");
  EXPECT_EQ(results[0]["key"], "L1/2#0");
  const auto answered = testing::read_jsonl(out / "generation.jsonl");
  EXPECT_EQ(answered.size(), 1u) << "judged only after the slow answer came";
  while (std::chrono::steady_clock::now() < deadline && !fs::exists(dir_ / "rc"))
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_TRUE(fs::exists(dir_ / "rc"));
  EXPECT_EQ(testing::read_text(dir_ / "rc"), "0\n") << testing::read_text(dir_ / "out.txt");

  results = testing::read_jsonl(out / "results.jsonl");
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[1]["key"], "L1/1#0");
  for (const json& r : results) EXPECT_EQ(r["verdict"], "compile_error") << r.dump();
  const json s = json::parse(testing::read_text(out / "summary.json"));
  EXPECT_EQ(s["kind"], "kjudge-kernelbench-summary");
  EXPECT_EQ(s["levels"]["level1"]["solutions"], 2);
  EXPECT_EQ(s["generation"]["answers"], 2);
  EXPECT_EQ(s["generation"]["model"], "fake-coder");
  EXPECT_EQ(s["run"]["solutions"], "generated by fake-coder");
  const json run_json = json::parse(testing::read_text(out / "run.json"));
  EXPECT_EQ(run_json["kind"], "kjudge-kernelbench-run");
  EXPECT_TRUE(fs::exists(out / "generation-summary.json"));
  EXPECT_EQ(testing::read_jsonl(out / "kernelbench-solutions.jsonl").size(), 2u);

  // --resume: nothing to ask, nothing to judge.
  auto r = testing::run_capture(run((dir_ / "kb").string(), out.string(), "--resume"));
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(requests(), 2u);
  EXPECT_EQ(testing::read_jsonl(out / "results.jsonl").size(), 2u);
}

}  // namespace
}  // namespace kjudge::kernelbench
