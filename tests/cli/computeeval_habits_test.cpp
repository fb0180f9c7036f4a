// A user coming from ComputeEval, through the real binary (issue 34): its option names for
// `kjudge evaluate`, a folder of solution packs evaluated pack by pack (several models at once,
// as ComputeEval 2026.1 does) with --resume, and NAME-graded-solutions.jsonl in each run
// directory. The example problems run on the host: no GPU needed, nvcc is.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;
const fs::path kSource = KJUDGE_SOURCE_DIR;
const std::string kBin = KJUDGE_BINARY;

testing::CmdResult sh(const std::string& command) {
  return testing::run_capture("cd '" + kSource.string() +
                              "' && PATH=\"$PATH:/usr/local/cuda/bin\" " + command);
}

bool have_nvcc() { return sh("command -v nvcc").rc == 0; }

nlohmann::json read_json(const fs::path& p) { return nlohmann::json::parse(testing::read_text(p)); }

// A solutions line of the example's saxpy problem, from one of its solution folders.
std::string saxpy_line(const std::string& example, int sample) {
  const std::string code =
      testing::read_text(kSource / "examples/solutions" / example / "solution.cu");
  return nlohmann::json({{"schema_version", 1},
                         {"type", "file"},
                         {"task_id", "example/saxpy"},
                         {"sample", sample},
                         {"files", {{{"path", "solution.cu"}, {"content", code}}}}})
             .dump() +
         "\n";
}

class ComputeEvalHabits : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_nvcc()) GTEST_SKIP() << "nvcc not installed";
  }
  // The saxpy problem only, the shared build cache of the CLI tests.
  std::string common() const {
    return " --problems examples/pack --task example/saxpy --cache-dir " +
           (fs::path(kBin).parent_path() / "test-cache").string() + " --work-dir " +
           (dir_ / "work").string();
  }
  testing::TempDir dir_;
};

TEST_F(ComputeEvalHabits, ComputeEvalsOptionNamesRunAnEvaluation) {
  testing::write_text(dir_ / "m-solutions.jsonl",
                      saxpy_line("pass-saxpy-functor", 0) + saxpy_line("fail-saxpy-wrong-sign", 1));
  const fs::path out = dir_ / "run";
  auto r = sh(kBin + " evaluate" + common() + " --solutions_datapack " +
              (dir_ / "m-solutions.jsonl").string() +
              " --k '(1, 2)' --n_workers 2 --mode local --out " + out.string());
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("--mode local is ComputeEval's"), std::string::npos) << r.out;
  const auto run = read_json(out / "run.json");
  EXPECT_EQ(run["options"]["workers"], 2) << run.dump();
  const auto summary = read_json(out / "summary.json");
  EXPECT_EQ(summary["ks"], nlohmann::json({1, 2}));
  EXPECT_DOUBLE_EQ(summary["pass_at_k"]["2"].get<double>(), 1.0);
  // A single file keeps its one run directory, now with ComputeEval's graded file beside it.
  EXPECT_EQ(summary["graded_solutions"], "m-graded-solutions.jsonl");
  const auto graded = testing::read_jsonl(out / "m-graded-solutions.jsonl");
  ASSERT_EQ(graded.size(), 2u);
  int passed = 0;
  for (const auto& g : graded) {
    passed += g["passed"].get<bool>();
    EXPECT_EQ(g["solution"]["datapack_name"], "m");
    EXPECT_TRUE(g["problem"]["test_files"].empty());
  }
  EXPECT_EQ(passed, 1);
  // The dashed spellings (Fire takes both) and a YAML config with ComputeEval's keys.
  testing::write_text(dir_ / "cfg.yaml", "evaluate:\n  n_workers: 3\n  k: [1]\n");
  r = sh(kBin + " --config " + (dir_ / "cfg.yaml").string() + " evaluate" + common() +
         " --solutions-datapack " + (dir_ / "m-solutions.jsonl").string() + " -q --out " +
         (dir_ / "run2").string());
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(read_json(dir_ / "run2/run.json")["options"]["workers"], 3);
  // The aliases stay out of --help's options; its footer points to their list.
  const std::string help = sh(kBin + " evaluate --help").out;
  EXPECT_EQ(help.find("--n-workers"), std::string::npos) << help;
  EXPECT_EQ(help.find("--profile_mode"), std::string::npos) << help;
  EXPECT_NE(help.find("docs/computeeval.md"), std::string::npos) << help;
}

TEST_F(ComputeEvalHabits, ComputeEvalOptionsKjudgeCannotHonourAreRefusedByName) {
  auto r = sh(kBin + " evaluate" + common() + " --solutions x --profile_mode ncu");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("--profile_mode: ncu has no equivalent"), std::string::npos) << r.out;
  r = sh(kBin + " evaluate --solutions_datapack x --problems_datapack_dir data/releases");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("--problems_datapack_dir: goes with --release"), std::string::npos) << r.out;
  r = sh(kBin + " evaluate --solutions x --problems examples/pack --k '(0,)'");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("--k: '0' is no k"), std::string::npos) << r.out;
  r = sh(kBin + " evaluate --problems examples/pack");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("--solutions: name the solutions"), std::string::npos) << r.out;
}

TEST_F(ComputeEvalHabits, AFolderOfPacksGivesEachPackItsOwnRunAndResumes) {
  const fs::path packs = dir_ / "packs";
  testing::write_text(packs / "good-solutions.jsonl", saxpy_line("pass-saxpy-functor", 0));
  auto p = sh(kBin + " solutions pack examples/solutions/fail-saxpy-wrong-sign -o " +
              (packs / "bad-solutions.tar.gz").string());
  ASSERT_EQ(p.rc, 0) << p.out;
  testing::write_text(packs / "README", "not a pack");
  const fs::path out = dir_ / "out";
  const std::string cmd =
      kBin + " evaluate" + common() + " --solutions " + packs.string() + " --out " + out.string();
  auto r = sh(cmd + " --json");
  ASSERT_EQ(r.rc, 0) << r.out;
  const auto printed = nlohmann::json::parse(r.out.substr(r.out.find("{\n")));
  EXPECT_EQ(printed["kind"], "kjudge-packs-summary") << "--json prints the combined summary";

  const auto summary = read_json(out / "summary.json");
  EXPECT_EQ(summary["complete"], true);
  ASSERT_EQ(summary["packs"].size(), 2u);
  EXPECT_EQ(summary["packs"][0]["name"], "bad");
  EXPECT_EQ(summary["packs"][1]["name"], "good");
  EXPECT_DOUBLE_EQ(summary["packs"][0]["pass_at_k"]["1"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(summary["packs"][1]["pass_at_k"]["1"].get<double>(), 1.0);
  for (const std::string name : {"bad", "good"}) {
    // Each pack is a whole run of its own: kjudge report and --resume work on it as on any.
    EXPECT_EQ(testing::read_jsonl(out / name / "results.jsonl").size(), 1u) << name;
    EXPECT_EQ(read_json(out / name / "summary.json")["command"], "evaluate");
    EXPECT_TRUE(fs::exists(out / name / "run.json"));
    const auto graded = testing::read_jsonl(out / name / (name + "-graded-solutions.jsonl"));
    ASSERT_EQ(graded.size(), 1u);
    EXPECT_EQ(graded[0]["passed"], name == "good");
  }
  EXPECT_EQ(summary["packs"][1]["graded_solutions"], "good/good-graded-solutions.jsonl");

  auto again = sh(cmd + " -q");
  EXPECT_EQ(again.rc, 2) << again.out;
  EXPECT_NE(again.out.find("--resume"), std::string::npos) << again.out;
  // A pack added to the folder is started by --resume; the others are not graded again.
  testing::write_text(packs / "late-solutions.jsonl", saxpy_line("fail-saxpy-wrong-sign", 0));
  const auto before = testing::read_text(out / "good/results.jsonl");
  auto resumed = sh(cmd + " --resume -q");
  ASSERT_EQ(resumed.rc, 0) << resumed.out;
  EXPECT_EQ(testing::read_text(out / "good/results.jsonl"), before) << "nothing redone";
  EXPECT_EQ(testing::read_jsonl(out / "late/results.jsonl").size(), 1u);
  EXPECT_EQ(read_json(out / "summary.json")["packs"].size(), 3u);
}

TEST_F(ComputeEvalHabits, AFolderOfPacksIsRefusedWhereItCannotRunAsOne) {
  const fs::path packs = dir_ / "packs";
  testing::write_text(packs / "a-solutions.jsonl", saxpy_line("pass-saxpy-functor", 0));
  testing::write_text(packs / "a-solutions.tar.gz", "x");
  auto r = sh(kBin + " evaluate" + common() + " --solutions " + packs.string());
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("two packs are named 'a'"), std::string::npos) << r.out;
  fs::remove(packs / "a-solutions.tar.gz");
  r = sh(kBin + " evaluate" + common() + " --solutions " + packs.string() +
         " --executor slurm --out " + (dir_ / "o").string());
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("one pack at a time"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir_ / "o")) << "nothing run, nothing written";
}

// --benchmark (ComputeEval's --profile_mode cupti): the graded file carries ComputeEval's
// solution_time, baseline_time and speedup, from a host-only problem that times itself (custom
// mode: the program prints its time, so neither a GPU nor the profiler is needed).
TEST(ComputeEvalHabitsTimed, TheGradedFileCarriesComputeEvalsTimes) {
  testing::TempDir d;
  const fs::path p = d / "problems/timed";
  testing::write_text(p / "problem-spec.yaml",
                      "type: cuda_cpp\nschema_version: 2\ntask_id: bench/timed\ndate: "
                      "\"2026-11-23\"\nprompt: Return 42.\nmetadata: {difficulty: easy, "
                      "host_only: true}\ngroup: cuda-kernels\nbuild_command: "
                      "cc -o test.out solution.c test/main.c\ntest_command: ./test.out\n"
                      "benchmark_command: ./test.out --perf\ntiming_mode: {type: custom}\n"
                      "compute_capability: null\ntimeout_seconds: 20.0\n");
  testing::write_text(p / "test/main.c",
                      "#include <stdio.h>\nint solve(void);\nconst char* ms(void);\n"
                      "int main(int argc, char** argv) {\n  if (argc > 1) { "
                      "printf(\"COMPUTE_EVAL_TIME_MS: %s\\n\", ms()); return 0; }\n"
                      "  return solve() == 42 ? 0 : 1;\n}\n");
  testing::write_text(p / "solution/solution.c",
                      "int solve(void) { return 42; }\nconst char* ms(void) { return \"10\"; }\n");
  testing::write_text(d / "fast/solution-spec.yaml", "task_id: bench/timed\nsample: 0\n");
  testing::write_text(d / "fast/solution.c",
                      "int solve(void) { return 42; }\nconst char* ms(void) { return \"4\"; }\n");
  auto r =
      sh(kBin + " evaluate --problems " + (d / "problems").string() + " --solutions_datapack " +
         (d / "fast").string() + " --profile_mode cupti --runs 3 -q --out " + (d / "b").string() +
         " --cache-dir " + (fs::path(kBin).parent_path() / "test-cache").string());
  ASSERT_EQ(r.rc, 0) << r.out;
  const auto graded = testing::read_jsonl(d / "b/fast-graded-solutions.jsonl");
  ASSERT_EQ(graded.size(), 1u);
  EXPECT_EQ(graded[0]["passed"], true);
  EXPECT_DOUBLE_EQ(graded[0]["solution_time"].get<double>(), 4.0) << graded[0].dump();
  EXPECT_DOUBLE_EQ(graded[0]["baseline_time"].get<double>(), 10.0);
  EXPECT_NEAR(graded[0]["speedup"].get<double>(), 2.5, 1e-9);
  EXPECT_TRUE(graded[0]["benchmark_output"].is_null());
}

}  // namespace
}  // namespace kjudge
