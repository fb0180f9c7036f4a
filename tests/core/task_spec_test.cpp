// task.yml parsing: the example tasks load, and each kind of bad task gets an error naming the
// file, the line and the key.
#include "core/task_spec.h"

#include <gtest/gtest.h>

#include <fstream>

#include "core/input_error.h"
#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

const fs::path kExamples = fs::path(KJUDGE_SOURCE_DIR) / "examples/tasks";

class BadTask : public ::testing::Test {
 protected:
  TempDir dir;
  void SetUp() override {
    std::ofstream(dir / "task.h") << "#pragma once\n";
    std::ofstream(dir / "reference.cuh") << "#pragma once\n";
  }
  // Loads a task.yml made of `yml`; returns the error (or "" when it loaded).
  std::string error_of(const std::string& yml, int* line = nullptr, std::string* field = nullptr) {
    std::ofstream(dir / "task.yml") << yml;
    try {
      load_task(dir.path());
    } catch (const InputError& e) {
      if (line) *line = e.line();
      if (field) *field = e.field();
      return e.what();
    }
    return "";
  }
  const std::string files =
      "files:\n"
      "  - {name: task.h, source: task.h}\n"
      "  - {name: reference.cuh, source: reference.cuh}\n"
      "  - {name: submission.cu, source: \"@SUBMISSION@\"}\n";
};

TEST(TaskSpec, EveryExampleTaskLoads) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(kExamples)) {
    if (!fs::exists(e.path() / "task.yml")) continue;
    TaskSpec t = load_task(e.path());
    ++n;
    EXPECT_EQ(t.lang, "cu") << t.name;
    EXPECT_FALSE(t.tests.empty()) << t.name;
    EXPECT_FALSE(t.benchmarks.empty()) << t.name;
    ASSERT_NE(t.submission_file(), nullptr) << t.name;
    EXPECT_EQ(task_unsupported(t), "") << t.name;
    for (const auto& c : t.tests) EXPECT_NE(c.find("seed"), nullptr) << t.name << " " << c.text();
  }
  EXPECT_GE(n, 1);
}

TEST(TaskSpec, ReadsEveryKey) {
  TaskSpec t = load_task(kExamples / "vectoradd");
  EXPECT_EQ(t.name, "vectoradd");
  EXPECT_EQ(t.ranking_by, RankingBy::geom);
  EXPECT_EQ(t.test_timeout_s, 120);
  EXPECT_EQ(t.benchmark_timeout_s, 300);
  EXPECT_EQ(t.ranked_timeout_s, 400);
  EXPECT_EQ(t.submission_file()->name, "submission.cu");
  ASSERT_EQ(t.sources.size(), 1u);
  EXPECT_EQ(t.tests[0].text(), "size: 1; seed: 1");
  EXPECT_GT(t.tests[0].line, 0);
  EXPECT_TRUE(fs::exists(t.files[0].source));
}

TEST_F(BadTask, DefaultsFollowGpuMode) {
  EXPECT_EQ(error_of("lang: cu\n" + files + "tests:\n  - {size: 3, seed: 1}\n"), "");
  TaskSpec t = load_task(dir.path());
  EXPECT_EQ(t.ranking_by, RankingBy::last);
  EXPECT_EQ(t.test_timeout_s, 180);
  EXPECT_EQ(t.ranked_timeout_s, 180);
  ASSERT_EQ(t.sources.size(), 1u);
  EXPECT_EQ(t.sources[0], "submission.cu") << "without config.sources the submission is compiled";
}

TEST_F(BadTask, ErrorsNameTheLineAndKey) {
  int line = 0;
  std::string field;
  std::string e = error_of(
      "lang: cu\n" + files + "tests:\n  - {size: 3, seed: 1}\nranking_by: best\n", &line, &field);
  EXPECT_NE(e.find("task.yml:8"), std::string::npos) << e;
  EXPECT_EQ(field, "ranking_by");
  EXPECT_NE(e.find("last, mean or geom"), std::string::npos) << e;
}

TEST_F(BadTask, NumbersOutOfRangeNameLineAndField) {
  int line = 0;
  std::string field;
  std::string e =
      error_of("lang: cu\n" + files + "tests:\n  - {size: 3, seed: 1}\n" + "test_timeout: 1e308\n",
               &line, &field);
  EXPECT_EQ(line, 8) << e;
  EXPECT_EQ(field, "test_timeout");
  EXPECT_NE(e.find("at most 86400"), std::string::npos) << e;
  EXPECT_EQ(error_of("lang: cu\n" + files + "tests:\n  - {size: 3}\nranked_timeout: 86400\n"), "");

  e = error_of("lang: cu\n" + files + "tests:\n  - {size: 99999999999999999999, seed: 1}\n", &line,
               &field);
  EXPECT_EQ(line, 7) << e;
  EXPECT_EQ(field, "tests[0].size");
  EXPECT_NE(e.find("64-bit"), std::string::npos) << e;
}

TEST_F(BadTask, EachMistakeIsCaught) {
  const std::string tests = "tests:\n  - {size: 3, seed: 1}\n";
  struct Case {
    std::string yml, expect;
  } cases[] = {
      {"lang: rust\n" + files + tests, "must be cu or py"},
      {files + tests, "lang"},
      {"lang: cu\n" + tests, "files"},
      {"lang: cu\nfiles:\n  - {name: task.h, source: task.h}\n" + tests, "@SUBMISSION@"},
      {"lang: cu\n" + files + "  - {name: x.cu, source: \"@SUBMISSION@\"}\n" + tests, "only one"},
      {"lang: cu\n" + files + "  - {name: more.h, source: missing.h}\n" + tests, "file not found"},
      {"lang: cu\n" + files + "  - {name: ../escape.h, source: task.h}\n" + tests, "relative path"},
      {"lang: cu\n" + files + "  - {name: task.h, source: task.h}\n" + tests, "listed twice"},
      {"lang: cu\n" + files, "at least one test"},
      {"lang: cu\n" + files + "tests:\n  - {size: \"1; seed: 2\"}\n", "integer or a plain word"},
      {"lang: cu\n" + files + "tests:\n  - 5\n", "map of arguments"},
      {"lang: cu\n" + files + "tests:\n  - {size: 3, seed: -1}\n", "negative"},
      {"lang: cu\n" + files + tests + "test_timeout: 0\n", "positive number"},
      {"lang: cu\n" + files + tests + "ranking: geom\n", "unknown key"},
      {"lang: cu\n" + files + tests + "seed: 5\n", "secret seed"},
      {"lang: cu\n" + files + tests + "config:\n  sources: [other.cu]\n", "not one of the files"},
      {"lang: cu\n" + files + tests + "config:\n  defines: {\"1X\": 2}\n", "not an identifier"},
      {"lang: cu\n" + files + tests + "multi_gpu: maybe\n", "true or false"},
      {"lang: cu\n" + files + tests + "libraries: [\"m; rm -rf /\"]\n", "not a library name"},
      {"lang: [cu\n", "invalid YAML"},
  };
  for (const auto& c : cases) {
    std::string e = error_of(c.yml);
    EXPECT_NE(e.find(c.expect), std::string::npos) << "yml:\n" << c.yml << "\nerror: " << e;
    EXPECT_NE(e.find("task.yml"), std::string::npos) << e;
  }
}

TEST_F(BadTask, MissingFolderSaysWhatATaskIs) {
  EXPECT_THROW(load_task(dir / "nowhere"), InputError);
}

TEST_F(BadTask, PythonAndOwnHarnessTasksLoad) {
  // lang py and GPU MODE's eval.cu load; which harness runs them is task/harness_choice.h's.
  EXPECT_EQ(
      error_of("lang: py\n" + files + "config: {main: task.h}\ntests:\n  - {size: 3, seed: 1}\n"),
      "");
  EXPECT_EQ(load_task(dir.path()).main, "task.h");
  EXPECT_EQ(task_unsupported(load_task(dir.path()), "NVIDIA H100 80GB HBM3"), "");
  EXPECT_NE(error_of("lang: py\n" + files + "config: {main: eval.py}\ntests:\n  - {size: 3}\n")
                .find("config.main"),
            std::string::npos);
  std::ofstream(dir / "eval.cu") << "int main() {}\n";
  EXPECT_EQ(error_of("lang: cu\n" + files +
                     "  - {name: eval.cu, source: eval.cu}\n"
                     "tests:\n  - {size: 3, seed: 1}\n"),
            "");
  EXPECT_TRUE(load_task(dir.path()).brings_eval_cu());
}

TEST_F(BadTask, GpusKeyDecidesB200OnlyAndAmdOnly) {
  const std::string tests = "tests:\n  - {size: 3, seed: 1}\n";
  ASSERT_EQ(error_of("lang: py\n" + files + tests + "gpus: [B200]\n"), "");
  const std::string b200 = task_unsupported(load_task(dir.path()), "NVIDIA H100 80GB HBM3");
  EXPECT_NE(b200.find("B200 only"), std::string::npos) << b200;
  EXPECT_NE(b200.find("H100"), std::string::npos) << b200;
  EXPECT_EQ(task_unsupported(load_task(dir.path()), "NVIDIA B200"), "");
  ASSERT_EQ(error_of("lang: py\n" + files + tests + "gpus: [MI300, MI355X]\n"), "");
  EXPECT_NE(task_unsupported(load_task(dir.path()), "NVIDIA H100").find("AMD GPUs only"),
            std::string::npos);
  ASSERT_EQ(error_of("lang: py\n" + files + tests + "gpus: [B200, H100]\n"), "");
  EXPECT_EQ(task_unsupported(load_task(dir.path()), "NVIDIA H100"), "");
  ASSERT_EQ(error_of("lang: py\n" + files + tests + "multi_gpu: true\n"), "");
  EXPECT_NE(task_unsupported(load_task(dir.path()), "NVIDIA H100").find("multi-GPU"),
            std::string::npos);
}

// GPU MODE's own trees, read where they are (../shared/datasets/gpumode): every problem loads,
// and the refusals say why for the ones no H100 can run.
const fs::path kGpuMode = fs::path(KJUDGE_SOURCE_DIR) / "../shared/datasets/gpumode";

TEST(TaskSpec, EveryGpuModeTaskLoadsAndTheUnrunnableAreRefused) {
  if (!fs::exists(kGpuMode)) GTEST_SKIP() << "no " << kGpuMode;
  const std::string h100 = "NVIDIA H100 80GB HBM3";
  int n = 0;
  for (const auto& e : fs::recursive_directory_iterator(kGpuMode)) {
    if (e.path().filename() != "task.yml") continue;
    const std::string rel = fs::relative(e.path().parent_path(), kGpuMode).string();
    TaskSpec t;
    try {
      t = load_task(e.path());
    } catch (const InputError& err) {
      // nvfp4_group_gemm's cases carry lists (m: [96, 128]), which the case line cannot: a
      // clear error naming the field (and a B200 task all the same).
      EXPECT_NE(rel.find("nvfp4_group_gemm"), std::string::npos) << err.what();
      EXPECT_NE(std::string(err.what()).find("tests[0].m"), std::string::npos) << err.what();
      continue;
    }
    ++n;
    const std::string why = task_unsupported(t, h100);
    if (rel.find("problems/pmpp_v2/") != std::string::npos ||
        rel.find("problems/pmpp/") != std::string::npos) {
      EXPECT_EQ(why, "") << rel;
      EXPECT_EQ(t.lang, "py") << rel;
      EXPECT_EQ(t.main, "eval.py") << rel;
    }
    if (rel.find("problems/amd") != std::string::npos) {
      EXPECT_NE(why.find("AMD"), std::string::npos) << rel << ": " << why;
    }
    if (rel.find("problems/linalg/") != std::string::npos ||
        rel.find("problems/nvidia/") != std::string::npos) {
      EXPECT_NE(why.find("B200"), std::string::npos) << rel << ": " << why;
    }
    if (t.multi_gpu) {
      EXPECT_NE(why, "") << rel;
    }
  }
  EXPECT_GE(n, 40);
  // The competition's yaml decides where task.yml names no GPUs.
  const TaskSpec gemv = load_task(kGpuMode / "reference-kernels/problems/nvidia/nvfp4_gemv");
  EXPECT_TRUE(gemv.gpus.empty());
  EXPECT_EQ(competition_gpus(gemv), std::vector<std::string>{"NVIDIA"});
  EXPECT_EQ(task_unsupported(gemv, "NVIDIA B200"), "");
}

}  // namespace
}  // namespace kjudge
