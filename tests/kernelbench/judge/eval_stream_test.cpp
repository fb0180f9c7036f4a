// The judge's stream: a solution added while the run is open is judged and journalled at once,
// before the next one comes and before the stream is finished (what lets kjudge run judge
// answers as they arrive); --resume knows what an earlier run judged; a stop leaves queued
// solutions unjudged. The solutions here need no runner process (no code, no ModelNew), so no
// torch or GPU is needed; the runner and the interpreter are still found, as for any run.
#include "kernelbench/judge/eval_stream.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "core/input_error.h"
#include "test_util.h"

namespace kjudge::kernelbench {
namespace {

namespace fs = std::filesystem;

const char* kProblem =
    "import torch\nimport torch.nn as nn\n\nclass Model(nn.Module):\n    def forward(self, x):\n"
    "        return x\n\ndef get_inputs():\n    return [torch.rand(4)]\n\n"
    "def get_init_inputs():\n    return []\n";

class KernelBenchStream : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::write_text(dir_ / "kb/level1/1_First.py", kProblem);
    testing::write_text(dir_ / "kb/level1/2_Second.py", kProblem);
    data_ = load_kernelbench(dir_ / "kb");
    opt_.dir = (dir_ / "kb").string();
    opt_.out = (dir_ / "run").string();
    opt_.python = "/usr/bin/python3";
    opt_.runner = KJUDGE_SOURCE_DIR "/python/kjudge_kernelbench_runner.py";
    opt_.no_bytecode_cache = true;
    opt_.no_cupti = true;
    opt_.no_cache = true;
    opt_.workers = 2;
    opt_.quiet = true;
    jobs_.label = "test";
    jobs_.keys = {"L1/1#0", "L1/2#0"};
    jobs_.fingerprint = "f1";
  }
  Solution solution(int id, const std::string& code) const {
    return {data_.find(1, id), 0, code, "test"};
  }
  std::size_t judged_lines() const {
    return fs::exists(dir_ / "run/results.jsonl")
               ? testing::read_jsonl(dir_ / "run/results.jsonl").size()
               : 0;
  }
  // Waits up to `s` seconds for results.jsonl to hold `n` lines.
  bool wait_for_lines(std::size_t n, double s) const {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(s);
    while (judged_lines() < n) {
      if (std::chrono::steady_clock::now() > end) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
  }

  testing::TempDir dir_;
  Dataset data_;
  EvalOptions opt_;
  StreamJobs jobs_;
  const Note quiet_ = [](const std::string&) {};
};

TEST_F(KernelBenchStream, JudgesEachSolutionAsItIsAdded) {
  EvalStream stream(opt_, {}, data_, jobs_, quiet_);
  EvalStop why;
  ASSERT_TRUE(stream.open(&why)) << why.message;
  stream.add(solution(2, "x = 1\n"));
  // Journalled while the stream is still open and nothing else was added.
  ASSERT_TRUE(wait_for_lines(1, 30)) << "the first solution was not judged until more came";
  const auto first = testing::read_jsonl(dir_ / "run/results.jsonl");
  EXPECT_EQ(first[0]["key"], "L1/2#0");
  EXPECT_EQ(first[0]["verdict"], "compile_error");
  EXPECT_NE(first[0]["detail"].get<std::string>().find("ModelNew"), std::string::npos);
  stream.add(solution(1, ""));
  const EvalDone done = stream.finish();
  EXPECT_EQ(judged_lines(), 2u);
  EXPECT_EQ(done.summary["run"]["solutions"], "test");
  EXPECT_EQ(done.summary["run"]["judged_now"], 2);
  EXPECT_EQ(done.summary["levels"]["level1"]["solutions"], 2);
  EXPECT_TRUE(fs::exists(dir_ / "run/summary.json"));
  EXPECT_TRUE(fs::exists(dir_ / "run/run.json"));
}

TEST_F(KernelBenchStream, ResumeKnowsWhatWasJudgedAndRefusesAnotherRun) {
  {
    EvalStream stream(opt_, {}, data_, jobs_, quiet_);
    ASSERT_TRUE(stream.open(nullptr));
    stream.add(solution(1, "no model here"));
    stream.finish();
  }
  // Without --resume the earlier results are not overwritten.
  {
    EvalStream again(opt_, {}, data_, jobs_, quiet_);
    EXPECT_THROW(again.open(nullptr), InputError);
  }
  opt_.resume = true;
  {
    EvalStream stream(opt_, {}, data_, jobs_, quiet_);
    ASSERT_TRUE(stream.open(nullptr));
    EXPECT_TRUE(stream.judged("L1/1#0"));
    EXPECT_FALSE(stream.judged("L1/2#0"));
    stream.add(solution(2, ""));
    const EvalDone done = stream.finish();
    EXPECT_EQ(done.summary["run"]["earlier"], 1);
    EXPECT_EQ(done.summary["run"]["judged_now"], 1);
  }
  EXPECT_EQ(judged_lines(), 2u);
  // Other solutions (another model's, more samples) are another run.
  jobs_.fingerprint = "f2";
  EvalStream other(opt_, {}, data_, jobs_, quiet_);
  EXPECT_THROW(other.open(nullptr), InputError);
}

TEST_F(KernelBenchStream, AStopLeavesQueuedSolutionsUnjudged) {
  std::atomic<bool> stop{false};
  opt_.workers = 1;
  EvalStream stream(opt_, {}, data_, jobs_, quiet_, &stop);
  ASSERT_TRUE(stream.open(nullptr));
  stop = true;
  stream.add(solution(1, ""));
  stream.add(solution(2, ""));
  const EvalDone done = stream.finish();
  EXPECT_EQ(done.summary["run"]["judged_now"], 0);
  EXPECT_EQ(judged_lines(), 0u);
}

TEST_F(KernelBenchStream, NoRunnerMeansTheRunDoesNotStart) {
  opt_.runner = (dir_ / "missing_runner.py").string();
  EvalStream stream(opt_, {}, data_, jobs_, quiet_);
  EvalStop why;
  EXPECT_FALSE(stream.open(&why));
  EXPECT_EQ(why.kind, EvalStop::Kind::environment);
  EXPECT_FALSE(why.message.empty());
  EXPECT_EQ(judged_lines(), 0u);
}

}  // namespace
}  // namespace kjudge::kernelbench
