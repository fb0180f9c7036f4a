// Which harness runs a task: kjudge's by default (CUDA for lang cu, Python for lang py), the
// task's own with --harness task, and a clear refusal where the one asked for cannot.
#include "task/harness_choice.h"

#include <gtest/gtest.h>

namespace kjudge::task {
namespace {

TaskSpec task_with(const std::string& lang, std::vector<std::string> names,
                   const std::string& main = "") {
  TaskSpec t;
  t.lang = lang;
  t.main = main;
  for (auto& n : names) t.files.push_back({n, {}, n == "submission.py" || n == "submission.cu"});
  return t;
}

TEST(HarnessChoice, DefaultsByLanguage) {
  const TaskSpec py = task_with("py", {"submission.py", "reference.py", "eval.py"}, "eval.py");
  EXPECT_EQ(choose_harness(py, "").kind, HarnessKind::kjudge_python);
  EXPECT_EQ(choose_harness(py, "kjudge").why_not, "");
  const TaskSpec cu = task_with("cu", {"submission.cu", "task.h", "reference.cuh"});
  EXPECT_EQ(choose_harness(cu, "kjudge").kind, HarnessKind::kjudge_cuda);
  EXPECT_EQ(choose_harness(cu, "kjudge").why_not, "");
}

TEST(HarnessChoice, TheTasksOwn) {
  const TaskSpec py = task_with("py", {"submission.py", "reference.py", "eval.py"}, "eval.py");
  HarnessChoice c = choose_harness(py, "task");
  EXPECT_EQ(c.kind, HarnessKind::task_python);
  EXPECT_EQ(c.why_not, "");
  EXPECT_STREQ(harness_name(c.kind), "task");
  const TaskSpec gm = task_with("cu", {"eval.cu", "submission.cu", "task.h", "reference.cuh"});
  EXPECT_EQ(choose_harness(gm, "task").kind, HarnessKind::task_cuda);
  EXPECT_EQ(choose_harness(gm, "task").why_not, "");
}

TEST(HarnessChoice, RefusalsSayWhatToDo) {
  // GPU MODE's CUDA form under kjudge's CUDA harness: points at --harness task.
  const TaskSpec gm = task_with("cu", {"eval.cu", "submission.cu", "task.h", "reference.cuh"});
  EXPECT_NE(choose_harness(gm, "").why_not.find("--harness task"), std::string::npos);
  // The task's own harness where there is none.
  const TaskSpec cu = task_with("cu", {"submission.cu", "reference.cuh"});
  EXPECT_NE(choose_harness(cu, "task").why_not.find("eval.cu"), std::string::npos);
  EXPECT_NE(choose_harness(task_with("py", {"submission.py", "reference.py"}), "task")
                .why_not.find("config.main"),
            std::string::npos);
  // kjudge's Python harness needs the reference it imports.
  EXPECT_NE(choose_harness(task_with("py", {"submission.py", "eval.py"}, "eval.py"), "")
                .why_not.find("reference.py"),
            std::string::npos);
  EXPECT_NE(choose_harness(task_with("py", {"submission.py"}), "mine").why_not.find("--harness"),
            std::string::npos);
}

}  // namespace
}  // namespace kjudge::task
