// The task's own harness (`--harness task`) run as GPU MODE's runner runs it, with stand-ins for
// eval.py and eval.out that write GPU MODE's lines on POPCORN_FD: the staging of `files:`, the
// descriptor and the seed handed over, the lines read into the stage; and kjudge's Python
// harness started from the judge (without torch here: it must stop with a clear reason, after
// deleting the seeds).
#include "task/own_harness.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "core/input_error.h"
#include "core/read_file.h"
#include "task/python_check.h"
#include "task/stage.h"
#include "test_util.h"

namespace kjudge::task {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

// A task folder in GPU MODE's layout: the shared harness one folder up.
struct GpuModeFolder {
  TempDir root;
  fs::path task_dir;
  TaskSpec task;
  explicit GpuModeFolder(const std::string& eval_body) {
    task_dir = root / "comp" / "add_py";
    fs::create_directories(task_dir);
    std::ofstream(root / "comp" / "eval.sh") << eval_body;
    std::ofstream(task_dir / "reference.py") << "# reference\n";
    std::ofstream(task_dir / "task.yml")
        << "files:\n"
           "  - {name: submission.py, source: \"@SUBMISSION@\"}\n"
           "  - {name: reference.py, source: reference.py}\n"
           "  - {name: eval.sh, source: ../eval.sh}\n"
           "lang: py\nconfig: {main: eval.sh}\n"
           "tests:\n  - {size: 3, seed: 5}\n  - {size: 9, seed: 6}\n"
           "benchmarks:\n  - {size: 100, seed: 7}\n"
           "test_timeout: 20\nbenchmark_timeout: 20\nranked_timeout: 20\n";
    task = load_task(task_dir);
  }
};

TaskRunOptions plain() {
  TaskRunOptions o;
  o.step.sandbox = false;
  o.python = "/bin/sh";  // runs the stand-in eval.sh as `python eval.py MODE FILE` would
  return o;
}

TaskBuild staged(const GpuModeFolder& f, const fs::path& ws) {
  TaskBuildOptions bo;
  bo.harness = HarnessKind::task_python;
  return build_own_harness(f.task, "def custom_kernel(data): return data\n", ws, bo);
}

TEST(OwnHarness, StagesFilesAsGpuModeLaysThemOut) {
  GpuModeFolder f("echo\n");
  TempDir ws;
  const TaskBuild b = staged(f, ws / "build");
  ASSERT_TRUE(b.ok) << b.failure;
  EXPECT_EQ(read_input_file(ws / "build/submission.py"), "def custom_kernel(data): return data\n");
  EXPECT_EQ(read_input_file(ws / "build/eval.sh"), "echo\n");  // ../eval.sh, resolved
  EXPECT_EQ(read_input_file(ws / "build/reference.py"), "# reference\n");
  // A file named where the judge writes its own is refused, naming task.yml.
  try {
    stage_task_files(f.task, "x", ws / "other", {"reference.py"});
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("task.yml"), std::string::npos);
  }
}

TEST(OwnHarness, ReadsTheLinesFromPopcornFd) {
  GpuModeFolder f(
      "out=/proc/self/fd/$POPCORN_FD\n"
      "echo \"args: $1 $2 seed=${POPCORN_SEED:-none}\" > seen.txt\n"
      "cp \"$2\" cases-seen.txt\n"
      "echo 'test-count: 2' >> $out\n"
      "echo 'test.0.spec: size: 3; seed: 5' >> $out\necho 'test.0.status: pass' >> $out\n"
      "echo 'test.1.spec: size: 9; seed: 6' >> $out\necho 'test.1.status: fail' >> $out\n"
      "echo 'test.1.error: mismatch found!' >> $out\n"
      "echo 'check: fail' >> $out\n"
      "exit 112\n");
  TempDir ws;
  const TaskBuild b = staged(f, ws / "build");
  const ModeRun r = run_own_harness_mode(f.task, b, "test", plain());
  EXPECT_TRUE(r.completed) << r.failure << r.log;
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.harness, "task");
  EXPECT_NE(r.failure.find("test 'size: 9; seed: 6': mismatch found!"), std::string::npos)
      << r.failure;
  EXPECT_EQ(read_input_file(ws / "build/seen.txt"), "args: test cases-test.txt seed=none\n");
  // GPU MODE's readers take every line as a case: no newline after the last.
  EXPECT_EQ(read_input_file(ws / "build/cases-seen.txt"), "size: 3; seed: 5\nsize: 9; seed: 6");
  nlohmann::json j = to_json(r, f.task);
  EXPECT_EQ(j["harness"], "task");
  EXPECT_EQ(j["tests"][1]["status"], "fail");
}

TEST(OwnHarness, RankedRunsGetTheSecretAsPopcornSeedAndScore) {
  GpuModeFolder f(
      "out=/proc/self/fd/$POPCORN_FD\n"
      "echo \"$POPCORN_SEED\" > seed.txt\ncp \"$2\" cases-seen.txt\n"
      "printf 'benchmark-count: 1\\nbenchmark.0.spec: size: 100; seed: 7\\nbenchmark.0.runs: 3\\n"
      "benchmark.0.mean: 4000\\nbenchmark.0.std: 10\\nbenchmark.0.err: 5\\nbenchmark.0.best: "
      "3990\\nbenchmark.0.worst: 4010\\ncheck: pass\\n' >> $out\n");
  TempDir ws;
  const TaskBuild b = staged(f, ws / "build");
  TaskRunOptions o = plain();
  o.secret_seed = 12345;
  const ModeRun r = run_own_harness_mode(f.task, b, "leaderboard", o);
  EXPECT_TRUE(r.passed) << r.failure << r.log;
  EXPECT_EQ(read_input_file(ws / "build/seed.txt"), "12345\n");
  // The public seeds: eval.py combines them with POPCORN_SEED itself.
  EXPECT_EQ(read_input_file(ws / "build/cases-seen.txt"), "size: 100; seed: 7");
  nlohmann::json j = to_json(r, f.task);
  EXPECT_DOUBLE_EQ(j["benchmarks"][0]["mean_us"].get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(j["benchmarks"][0]["rel_err"].get<double>(), 5.0 / 4000);
  EXPECT_DOUBLE_EQ(j["score_us"].get<double>(), 4.0);
}

// load_inline in a submission runs ninja, which torch finds on PATH: the venv's bin/ comes first
// (its python is a link, so the folder as named, not the link's target), and extensions build
// in the run's own workspace.
TEST(OwnHarness, TheInterpretersFolderIsFirstOnPathAndExtensionsBuildInTheWorkspace) {
  GpuModeFolder f(
      "echo \"$PATH\" > path.txt\necho \"$TORCH_EXTENSIONS_DIR\" > ext.txt\n"
      "echo 'test-count: 0' >> /proc/self/fd/$POPCORN_FD\n"
      "echo 'check: pass' >> /proc/self/fd/$POPCORN_FD\n");
  TempDir venv, ws;
  fs::create_directories(venv / "bin");
  fs::create_symlink("/bin/sh", venv / "bin/python");
  const TaskBuild b = staged(f, ws / "build");
  TaskRunOptions o = plain();
  o.python = (venv / "bin/python").string();
  const ModeRun r = run_own_harness_mode(f.task, b, "test", o);
  ASSERT_TRUE(r.completed) << r.failure << r.log;
  EXPECT_EQ(read_input_file(ws / "build/path.txt").rfind((venv / "bin").string() + ":", 0), 0u)
      << read_input_file(ws / "build/path.txt");
  EXPECT_EQ(read_input_file(ws / "build/ext.txt"),
            (b.workspace / ".torch_extensions").string() + "\n");
}

TEST(OwnHarness, AHarnessThatDiesWithoutACheckLineFails) {
  GpuModeFolder f("echo 'Traceback: boom' >&2\nexit 1\n");
  TempDir ws;
  const ModeRun r = run_own_harness_mode(f.task, staged(f, ws / "build"), "test", plain());
  EXPECT_FALSE(r.completed);
  EXPECT_NE(r.failure.find("exited 1"), std::string::npos) << r.failure;
  EXPECT_NE(r.failure.find("boom"), std::string::npos) << r.failure;
}

TEST(OwnHarness, CudaFormBuildsWithGpuModesFlags) {
  TaskSpec t;
  t.sources = {"eval.cu", "submission.cu"};
  t.include_dirs = {"inc"};
  const std::string cmd = own_cuda_build_command(t, "sm_90a", "/usr/local/cuda/bin/nvcc");
  EXPECT_NE(cmd.find("-gencode arch=compute_90a,code=sm_90a"), std::string::npos) << cmd;
  EXPECT_NE(cmd.find(" eval.cu submission.cu -o eval.out -lcuda"), std::string::npos) << cmd;
  EXPECT_NE(cmd.find("-Iinc"), std::string::npos) << cmd;
  EXPECT_EQ(own_harness_argv(t, HarnessKind::task_cuda, "", "benchmark", "cases.txt"),
            (std::vector<std::string>{"./eval.out", "benchmark", "cases.txt"}));
}

// kjudge's Python harness, started by the judge with the system Python (no torch here): the
// checker takes the channel, deletes the seeds' file and stops at torch's import, which the
// stage reports; with torch the same start runs the modes (tests/gpu/run-gpumode-checks.sh).
TEST(PythonHarness, StartsFromTheJudgeAndDeletesTheSeeds) {
  GpuModeFolder f("echo\n");
  TempDir ws;
  TaskBuild b;
  b.harness = HarnessKind::kjudge_python;
  b.workspace = ws / "build";
  b.ok = true;
  stage_task_files(f.task, "def custom_kernel(d): return d\n", b.workspace);
  TaskRunOptions o;
  o.step.sandbox = false;
  o.python = "/usr/bin/python3";
  o.python_runner = fs::path(KJUDGE_SOURCE_DIR) / "python/kjudge_gpumode_runner.py";
  const ModeRun r = run_task_mode(f.task, b, "test", o);
  EXPECT_TRUE(r.isolated);
  EXPECT_FALSE(r.completed);
  EXPECT_FALSE(fs::exists(b.workspace / "cases-test.txt"));
  EXPECT_NE(r.log.find("torch"), std::string::npos) << r.log;
}

TEST(TaskPythonCheck, AnInterpreterWithoutTorchIsOneClearMessage) {
  const TaskPython py = probe_task_python("/usr/bin/python3");
  EXPECT_EQ(py.executable.front(), '/');
  if (!py.torch.empty()) GTEST_SKIP() << "this Python has torch";
  const std::string why = task_python_problem(py, true);
  EXPECT_NE(why.find("cannot import torch"), std::string::npos) << why;
  EXPECT_NE(why.find("--python"), std::string::npos) << why;
  EXPECT_THROW(probe_task_python("/nonexistent/python3"), std::runtime_error);
}

}  // namespace
}  // namespace kjudge::task
