// `kjudge evaluate --problems TRITONBENCH_DIR --solutions TRITON_PACK` (cli/evaluate_triton.h):
// the same judge as `kjudge triton eval --solutions`, reached through evaluate, with the fake
// runner standing in for torch ($KJUDGE_TRITON_RUNNER, $KJUDGE_TRITON_PYTHON); options that
// mean nothing for Triton refused by name; a pack of one kind against problems of the other
// refused with why.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli/evaluate_triton.h"
#include "core/input_error.h"
#include "test_util.h"

namespace kjudge::triton {
namespace {

namespace fs = std::filesystem;
using kjudge::testing::run_capture;
using kjudge::testing::TempDir;
using nlohmann::json;

const fs::path kData = fs::path(KJUDGE_SOURCE_DIR "/../shared/datasets/tritonbench");
const std::string kFake = KJUDGE_SOURCE_DIR "/tests/fixtures/fake_triton_runner.py";

class TritonEvaluate : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::is_directory(kData)) GTEST_SKIP() << "shared dataset missing: " << kData;
    std::ofstream(dir_ / "sol.jsonl")
        << json{{"operator", "add_example"}, {"code", "#fake ok\n#fake time 0.5\n"}}.dump() << "\n"
        << json{{"operator", "add_example"}, {"code", "#fake ok 3.0\n"}}.dump() << "\n";
  }
  std::string evaluate(const std::string& solutions, const std::string& more = "") const {
    // KJUDGE_PROFILER=none: timed without the profiler unless a test names one (--profiler).
    return "KJUDGE_PROFILER=none KJUDGE_TRITON_RUNNER=" + kFake +
           " KJUDGE_TRITON_PYTHON=/usr/bin/python3 " + std::string(KJUDGE_BINARY) +
           " evaluate --problems " + kData.string() + " --solutions " + solutions +
           " --sandbox none --out " + (dir_ / "run").string() + " " + more;
  }
  TempDir dir_;
};

TEST_F(TritonEvaluate, ATritonPackIsJudgedByTheTritonJudge) {
  auto r = run_capture(evaluate((dir_ / "sol.jsonl").string(),
                                "--json --benchmark --runs 2 --warmups 0 --group G --workers 2"));
  ASSERT_EQ(r.rc, 0) << r.out;
  json summary = json::parse(r.out.substr(r.out.find('{')));
  EXPECT_EQ(summary["kind"], "kjudge-triton-summary");
  EXPECT_EQ(summary["solutions"], (dir_ / "sol.jsonl").string());
  EXPECT_EQ(summary["totals"]["judged"], 2);
  EXPECT_EQ(summary["totals"]["exec_ok"], 1);  // the second candidate returns 3.0
  EXPECT_EQ(summary["speedup"], true);         // --benchmark: the timed rounds
  EXPECT_EQ(summary["options"]["timing"]["rounds"], 2);
  EXPECT_EQ(summary["options"]["timing"]["warmup_rounds"], 0);
  EXPECT_EQ(summary["options"]["workers"], 2);
  EXPECT_EQ(summary["options"]["python"], "/usr/bin/python3");
  EXPECT_TRUE(fs::exists(dir_ / "run/results.jsonl"));

  // The folder kjudge generate --tritonbench writes, and --task as its task ids name operators.
  fs::create_directories(dir_ / "gen");
  fs::copy_file(dir_ / "sol.jsonl", dir_ / "gen/triton-solutions.jsonl");
  fs::remove_all(dir_ / "run");
  r = run_capture(evaluate((dir_ / "gen").string(), "--json --task G/add_example.py"));
  ASSERT_EQ(r.rc, 0) << r.out;
  summary = json::parse(r.out.substr(r.out.find('{')));
  EXPECT_EQ(summary["totals"]["judged"], 2);
  EXPECT_EQ(summary["solutions"], (dir_ / "gen/triton-solutions.jsonl").string());

  // Without --json: the note on stderr, the table, the results path.
  fs::remove_all(dir_ / "run");
  r = run_capture(evaluate((dir_ / "sol.jsonl").string()));
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("is a TritonBench folder: judging Triton operators"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("results: "), std::string::npos) << r.out;
  // -q: no progress and no table.
  fs::remove_all(dir_ / "run");
  r = run_capture(evaluate((dir_ / "sol.jsonl").string(), "-q"));
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(r.out.find("GROUP"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("reference"), std::string::npos) << r.out;
}

// --resume finishes a Triton run as `kjudge triton eval --resume` does (triton/cli_test.cpp).
TEST_F(TritonEvaluate, ResumeFinishesATritonRun) {
  ASSERT_EQ(run_capture(evaluate((dir_ / "sol.jsonl").string(), "-q")).rc, 0);
  auto again = run_capture(evaluate((dir_ / "sol.jsonl").string()));
  EXPECT_EQ(again.rc, 2) << again.out;
  EXPECT_NE(again.out.find("pass --resume"), std::string::npos) << again.out;
  auto r = run_capture(evaluate((dir_ / "sol.jsonl").string(), "--resume --json"));
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("2 of 2 candidates already judged"), std::string::npos) << r.out;
  json summary = json::parse(r.out.substr(r.out.find("{\n")));
  EXPECT_EQ(summary["totals"]["judged"], 2);
  // With another filter it is another run.
  auto other = run_capture(evaluate((dir_ / "sol.jsonl").string(), "--resume --benchmark"));
  EXPECT_EQ(other.rc, 2) << other.out;
  EXPECT_NE(other.out.find("--speedup (was false, now true)"), std::string::npos) << other.out;
}

// --profiler on a Triton pack is the Triton judge's --cupti with that library (here a file that
// is no library: the fake runner plays the profiler); it needs --benchmark, as --cupti does.
TEST_F(TritonEvaluate, TheProfilerNamedTurnsOnCupti) {
  std::ofstream(dir_ / "libkjudge_profiler.so") << "not a library\n";
  const std::string lib = (dir_ / "libkjudge_profiler.so").string();
  auto r = run_capture(evaluate((dir_ / "sol.jsonl").string(),
                                "-q --benchmark --runs 2 --warmups 0 --profiler " + lib));
  ASSERT_EQ(r.rc, 0) << r.out;
  std::ifstream in(dir_ / "run/results.jsonl");
  int with_cupti = 0;
  for (std::string line; std::getline(in, line);) {
    const json j = json::parse(line);
    if (j.contains("cupti")) {
      ++with_cupti;
      EXPECT_EQ(j["cupti"]["used"], true) << j["cupti"].dump();
    }
  }
  EXPECT_EQ(with_cupti, 1) << "the passing candidate is timed, the wrong one is not";
  fs::remove_all(dir_ / "run");
  auto no_bench = run_capture(evaluate((dir_ / "sol.jsonl").string(), "-q --profiler " + lib));
  EXPECT_EQ(no_bench.rc, 2) << no_bench.out;
  EXPECT_NE(no_bench.out.find("needs --benchmark"), std::string::npos) << no_bench.out;
}

TEST_F(TritonEvaluate, OptionsWithoutMeaningForTritonAreRefusedByName) {
  auto refused = [&](const std::string& more, const std::string& what) {
    auto r = run_capture(evaluate((dir_ / "sol.jsonl").string(), more));
    EXPECT_EQ(r.rc, 2) << more << ": " << r.out;
    EXPECT_NE(r.out.find(what), std::string::npos) << more << ": " << r.out;
    EXPECT_FALSE(fs::exists(dir_ / "run/results.jsonl")) << more;
  };
  refused("-k 1,3", "-k cannot apply to Triton operators");
  refused("--no-cache --retries 3", "--no-cache, --retries cannot apply");
  refused("--executor slurm", "--executor slurm cannot apply");
  refused("--gpus 0,1", "the Triton judge runs on one GPU");
  refused("--group X", "'X' is not a TritonBench channel");
  refused("--difficulty 7", "'7' is not a TritonBench difficulty");
  refused("--difficulty 2 --difficulty 3", "give it once");
}

TEST_F(TritonEvaluate, APackOfOneKindAgainstProblemsOfTheOtherIsRefused) {
  // A Triton pack against ComputeEval problems.
  auto r = run_capture(std::string(KJUDGE_BINARY) + " evaluate --problems " + KJUDGE_SOURCE_DIR +
                       "/examples/pack --solutions " + (dir_ / "sol.jsonl").string() + " --out " +
                       (dir_ / "run").string());
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("a Triton solutions pack: --problems must be the TritonBench data folder"),
            std::string::npos)
      << r.out;
  // A ComputeEval .tar.gz against the TritonBench folder.
  std::ofstream(dir_ / "x-solutions.tar.gz", std::ios::binary) << std::string("\x1f\x8b\x08", 3);
  r = run_capture(evaluate((dir_ / "x-solutions.tar.gz").string()));
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("a .tar.gz is a ComputeEval solutions pack"), std::string::npos) << r.out;
  // A folder without the pack's file, and a path that does not exist.
  fs::create_directories(dir_ / "empty");
  r = run_capture(evaluate((dir_ / "empty").string()));
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("a folder without triton-solutions.jsonl"), std::string::npos) << r.out;
  r = run_capture(evaluate((dir_ / "missing.jsonl").string()));
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("does not exist"), std::string::npos) << r.out;
  // A ComputeEval solutions.jsonl line against the TritonBench folder: the Triton reader names
  // the line and the field it lacks.
  std::ofstream(dir_ / "ce.jsonl") << R"({"task_id": "CUDA/1", "files": []})"
                                   << "\n";
  r = run_capture(evaluate((dir_ / "ce.jsonl").string()));
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("ce.jsonl:1"), std::string::npos) << r.out;
}

TEST(TritonEvaluateDispatch, RecognisesEachSide) {
  TempDir dir;
  fs::create_directories(dir / "bench");
  std::ofstream(dir / "bench/TritonBench_operator_files.jsonl") << "";
  EXPECT_TRUE(is_tritonbench_folder(dir / "bench"));
  EXPECT_FALSE(is_tritonbench_folder(dir.path()));
  std::ofstream(dir / "a.jsonl") << "\n"
                                 << R"({"file": "add_example.py", "code": ""})"
                                 << "\n";
  std::ofstream(dir / "b.jsonl") << R"({"task_id": "CUDA/1", "code": "", "operator": "x"})";
  std::ofstream(dir / "my-triton-solutions.jsonl") << "not even JSON";
  EXPECT_TRUE(is_triton_solutions(dir / "a.jsonl"));
  EXPECT_FALSE(is_triton_solutions(dir / "b.jsonl"));  // a ComputeEval line
  EXPECT_TRUE(is_triton_solutions(dir / "my-triton-solutions.jsonl"));
  EXPECT_FALSE(is_triton_solutions(dir / "nope.jsonl"));
  EXPECT_TRUE(is_triton_evaluation((dir / "bench").string(), (dir / "b.jsonl").string()));
  EXPECT_FALSE(is_triton_evaluation(dir.path().string(), (dir / "b.jsonl").string()));
  EXPECT_THROW(is_triton_evaluation(dir.path().string(), (dir / "a.jsonl").string()), InputError);
  EXPECT_EQ(triton_solutions_file(dir / "a.jsonl"), dir / "a.jsonl");
}

}  // namespace
}  // namespace kjudge::triton
