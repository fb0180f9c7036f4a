// `kjudge kernelbench` through the binary: list the real data folder; eval on this machine (no
// torch, no GPU): the runner is started for real and its setup stage fails, which is the
// machine's fault (env_error, not charged, exit 3), the first run tells the others; what needs
// no run (no ModelNew, level 4 without a model cache) is judged without one; --resume and its
// identity check; bad arguments.
#include <gtest/gtest.h>

#include <filesystem>

#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;
using kjudge::testing::read_jsonl;
using kjudge::testing::run_capture;
using kjudge::testing::TempDir;
using kjudge::testing::write_text;

const fs::path kData = fs::path(KJUDGE_SOURCE_DIR "/../shared/datasets/kernelbench");
const std::string kBin = KJUDGE_BINARY;

#define SKIP_WITHOUT_DATA()                                                            \
  do {                                                                                 \
    if (!fs::is_directory(kData)) GTEST_SKIP() << "shared dataset missing: " << kData; \
  } while (0)

bool has_torch() { return std::system("/usr/bin/python3 -c 'import torch' 2>/dev/null") == 0; }

std::string eval_cmd(const std::string& rest) {
  return "env -u HF_HOME " + kBin + " kernelbench eval " + kData.string() +
         " --python /usr/bin/python3 --sandbox none --no-bytecode-cache --no-cupti " + "--runner " +
         KJUDGE_SOURCE_DIR + "/python/kjudge_kernelbench_runner.py " + rest;
}

TEST(KernelBenchCli, ListShowsEveryProblem) {
  SKIP_WITHOUT_DATA();
  auto r = run_capture(kBin + " kernelbench list " + kData.string() + " --level 1 --json");
  ASSERT_EQ(r.rc, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 100u);
  EXPECT_EQ(j[0]["key"], "L1/1");
  EXPECT_EQ(j[18]["file"], "19_ReLU.py");
  EXPECT_EQ(j[18]["kind"], "kjudge-kernelbench-problem");
  r = run_capture(kBin + " kernelbench list " + kData.string());
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("270 problems (level 1: 100, level 2: 100, level 3: 50, level 4: 20)"),
            std::string::npos)
      << r.out;
  r = run_capture(kBin + " kernelbench list /nonexistent-kb");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.out.find("not a folder"), std::string::npos) << r.out;
  EXPECT_EQ(run_capture(kBin + " kernelbench list --help").rc, 0);
}

TEST(KernelBenchCli, WithoutTorchTheMachineIsBlamedNotTheSolutions) {
  SKIP_WITHOUT_DATA();
  if (has_torch()) GTEST_SKIP() << "this machine has torch";
  TempDir dir;
  const std::string out = (dir / "run").string();
  auto r = run_capture(eval_cmd("--self --level 1 --limit 3 --workers 1 --out " + out));
  EXPECT_EQ(r.rc, 3) << r.out;
  const auto lines = read_jsonl(fs::path(out) / "results.jsonl");
  ASSERT_EQ(lines.size(), 3u) << r.out;
  int started = 0;
  for (const auto& l : lines) {
    EXPECT_EQ(l["verdict"], "env_error") << l.dump();
    EXPECT_NE(l["detail"].get<std::string>().find("torch"), std::string::npos) << l.dump();
    started += !l["run"].is_null();
  }
  EXPECT_EQ(started, 1);  // the first run says the machine lacks torch; the others are not run
  const auto summary =
      nlohmann::json::parse(kjudge::testing::read_text(fs::path(out) / "summary.json"));
  EXPECT_EQ(summary["levels"]["level1"]["solutions"], 3);
  EXPECT_EQ(summary["levels"]["level1"]["charged"], 0);
  EXPECT_TRUE(summary["levels"]["level1"]["correct_rate"].is_null());
  EXPECT_TRUE(fs::exists(fs::path(out) / "run.json"));
  // --resume: nothing left to judge; other verdict-deciding options are refused.
  r = run_capture(eval_cmd("--self --level 1 --limit 3 --out " + out + " --resume"));
  EXPECT_EQ(r.rc, 3) << r.out;
  EXPECT_EQ(read_jsonl(fs::path(out) / "results.jsonl").size(), 3u);
  r = run_capture(eval_cmd("--self --level 1 --limit 3 --trials 2 --out " + out + " --resume"));
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("--trials"), std::string::npos) << r.out;
  r = run_capture(eval_cmd("--self --level 1 --limit 3 --out " + out));
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.out.find("--resume"), std::string::npos) << r.out;
}

TEST(KernelBenchCli, WhatNeedsNoRunIsJudgedWithoutOne) {
  SKIP_WITHOUT_DATA();
  TempDir dir;
  write_text(dir / "sols/level_1_problem_19_sample_0_kernel.py", "import torch\nx = 1\n");
  write_text(dir / "sols/level_1_problem_19_sample_1_kernel.py", "");
  auto r = run_capture(eval_cmd("--solutions " + (dir / "sols").string() + " --out " +
                                (dir / "run").string() + " --json"));
  EXPECT_EQ(r.rc, 0) << r.out;
  const auto lines = read_jsonl(dir / "run/results.jsonl");
  ASSERT_EQ(lines.size(), 2u);
  for (const auto& l : lines) {
    EXPECT_EQ(l["verdict"], "compile_error") << l.dump();
    EXPECT_EQ(l["compiled"], false);
  }
  // Level 4 without a model cache: refused with that reason, not charged.
  r = run_capture(eval_cmd("--self --level 4 --limit 1 --out " + (dir / "run4").string()));
  EXPECT_EQ(r.rc, 3) << r.out;
  const auto l4 = read_jsonl(dir / "run4/results.jsonl");
  ASSERT_EQ(l4.size(), 1u);
  EXPECT_EQ(l4[0]["verdict"], "env_error");
  EXPECT_NE(l4[0]["detail"].get<std::string>().find("HF_HOME"), std::string::npos) << l4[0].dump();
}

TEST(KernelBenchCli, BadArgumentsAreUsageErrors) {
  SKIP_WITHOUT_DATA();
  TempDir dir;
  auto r = run_capture(eval_cmd("--level 1"));
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.out.find("exactly one of --solutions F and --self"), std::string::npos) << r.out;
  r = run_capture(eval_cmd("--self --problem L1/999 --out " + (dir / "x").string()));
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.out.find("names no problem"), std::string::npos) << r.out;
  r = run_capture(eval_cmd("--self --gpu-memory lots"));
  EXPECT_EQ(r.rc, 2);
  write_text(dir / "bad.jsonl", "{\"problem\": \"L1/19\"}\n");
  r = run_capture(eval_cmd("--solutions " + (dir / "bad.jsonl").string()));
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.out.find("bad.jsonl:1: field 'code'"), std::string::npos) << r.out;
  EXPECT_EQ(run_capture(kBin + " kernelbench eval --help").rc, 0);
}

}  // namespace
}  // namespace kjudge
