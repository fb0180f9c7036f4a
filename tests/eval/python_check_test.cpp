// Doctor's check of the cuda_python environment, asked of a real interpreter (a venv made here,
// with one module of its own): a module the problems' tests import and the environment lacks
// fails the check, naming it with its group, since such a test would fail with
// ModuleNotFoundError and charge the model; the problems' own modules and the standard library
// are not asked for; problems the machine skips anyway are not counted.
#include "eval/python_check.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;

Problem py_problem(const std::string& id, const std::string& group, const std::string& test) {
  Problem p;
  p.task_id = id;
  p.group = group;
  p.type = "cuda_python";
  p.test_files = {{"test/test_x.py", test}};
  p.baseline_solution = Solution{};
  p.baseline_solution->files = {{"solution.py", "import kjudge_present\n"}};
  return p;
}

class PythonCheck : public ::testing::Test {
 protected:
  void SetUp() override {
    const fs::path venv = dir_ / "env";
    ASSERT_EQ(std::system(("python3 -m venv --without-pip " + venv.string()).c_str()), 0);
    for (const auto& e : fs::recursive_directory_iterator(venv / "lib"))
      if (e.path().filename() == "site-packages")
        testing::write_text(e.path() / "kjudge_present.py", "X = 1\n");
    machine_.gpus.push_back(GpuInfo{0, "NVIDIA H100 80GB HBM3", "9.0", "GPU-0"});
    machine_.python_env = read_python_env(venv);
    ASSERT_TRUE(machine_.python_env);
  }
  testing::TempDir dir_;
  MachineInfo machine_;
};

TEST_F(PythonCheck, AMissingModuleFailsNamingItsGroup) {
  const Problem a = py_problem("cupy/a", "cupy",
                               "import json, sys\nimport kjudge_present\nimport kjudge_absent_mod\n"
                               "from solution import f\n");
  const Problem b = py_problem("other/b", "other", "import kjudge_present\n");
  const EnvCheck c = python_check(machine_, {&a, &b});
  EXPECT_EQ(c.status, CheckStatus::fail) << c.detail;
  EXPECT_NE(c.detail.find("kjudge_absent_mod (1 problems: cupy)"), std::string::npos) << c.detail;
  for (const char* asked_not : {"json", "sys", "solution", "kjudge_present"})
    EXPECT_EQ(c.detail.find(std::string(asked_not) + " ("), std::string::npos) << c.detail;
  EXPECT_NE(c.advice.find("--exclude-group cupy"), std::string::npos) << c.advice;
}

TEST_F(PythonCheck, WhatTheEnvironmentHasPasses) {
  const Problem b = py_problem("other/b", "other", "import kjudge_present\n");
  const EnvCheck c = python_check(machine_, {&b});
  EXPECT_EQ(c.status, CheckStatus::ok) << c.detail;
  EXPECT_NE(c.detail.find("the 1 modules"), std::string::npos) << c.detail;
}

TEST_F(PythonCheck, ProblemsSkippedHereAreNotCounted) {
  Problem a = py_problem("cutile/a", "cutile", "import kjudge_absent_mod\n");
  a.compute_capability = "10.0";  // an H100 is 9.0
  const EnvCheck c = python_check(machine_, {&a});
  EXPECT_EQ(c.status, CheckStatus::ok) << c.detail;
  EXPECT_NE(c.detail.find("1 more are skipped"), std::string::npos) << c.detail;
}

TEST_F(PythonCheck, NoEnvironmentWarnsOrFails) {
  machine_.python_env.reset();
  const Problem a = py_problem("cupy/a", "cupy", "import cupy\n");
  Problem cpp;
  cpp.task_id = "c/1";
  EXPECT_EQ(python_check(machine_, {&a}).status, CheckStatus::fail) << "nothing could be judged";
  const EnvCheck some = python_check(machine_, {&a, &cpp});
  EXPECT_EQ(some.status, CheckStatus::warn);
  EXPECT_NE(some.advice.find("scripts/install-python-env"), std::string::npos) << some.advice;
  EXPECT_TRUE(python_check(machine_, {&cpp}).detail.empty()) << "no check without cuda_python";
}

}  // namespace
}  // namespace kjudge
