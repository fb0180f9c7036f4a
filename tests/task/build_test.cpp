// Task builds: the workspace (task files, submission, harness), the nvcc command, and, where
// nvcc is installed, every example task built with each of its submissions through the real
// binary (`kjudge task build`, sandboxed as in a run).
#include "task/build.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "core/input_error.h"
#include "eval/harness_files.h"
#include "eval/solution_rules.h"
#include "test_util.h"

namespace kjudge::task {
namespace {

namespace fs = std::filesystem;
using testing::run_capture;
using testing::TempDir;

const fs::path kExamples = fs::path(KJUDGE_SOURCE_DIR) / "examples/tasks";

bool have_nvcc() {
  return run_capture("command -v nvcc || test -x /usr/local/cuda/bin/nvcc").rc == 0;
}

TEST(TaskBuild, TheBinaryCarriesTheHarness) {
  bool main_file = false, api = false;
  for (const auto& f : harness_files()) {
    main_file |= f.name == "kjudge_harness.cu" && f.text.find("int main(") != std::string::npos;
    api |= f.name == "kjudge/task_api.cuh";
  }
  EXPECT_TRUE(main_file);
  EXPECT_TRUE(api);
}

TEST(TaskBuild, CommandCompilesTheSubmissionAloneWithPtxasReports) {
  TaskSpec t = load_task(kExamples / "vectoradd");
  t.defines = {{"TILE", "64"}, {"FAST", ""}};
  t.compile_flags = {"--use_fast_math"};
  t.libraries = {"cublas"};
  std::string cmd = task_build_command(t, "sm_90a", "/usr/local/cuda/bin/nvcc");
  EXPECT_NE(cmd.find("-gencode arch=compute_90a,code=sm_90a"), std::string::npos) << cmd;
  EXPECT_NE(cmd.find("-Xptxas=-v -c submission.cu"), std::string::npos) << cmd;
  EXPECT_EQ(cmd.find("-Xptxas=-v -c kjudge_harness.cu"), std::string::npos) << cmd;
  EXPECT_NE(cmd.find("-DTILE=64 -DFAST --use_fast_math"), std::string::npos) << cmd;
  EXPECT_NE(cmd.find("-o kjudge_task -lcublas"), std::string::npos) << cmd;
  t.defines = {{"MSG", "a b'c"}};
  cmd = task_build_command(t, "sm_80", "nvcc");
  EXPECT_NE(cmd.find("'-DMSG=a b'\\''c'"), std::string::npos) << "quoted for the shell: " << cmd;
  EXPECT_NE(cmd.find("arch=compute_80,code=sm_80"), std::string::npos) << cmd;
}

TEST(TaskBuild, IsolateAddsTheCheckerAndTheWorker) {
  TaskSpec t = load_task(kExamples / "vectoradd");
  t.libraries = {"cublas"};
  const std::string plain = task_build_command(t, "sm_90a", "nvcc");
  EXPECT_EQ(plain.find("kjudge_checker"), std::string::npos) << plain;
  const std::string cmd = task_build_command(t, "sm_90a", "nvcc", true);
  EXPECT_NE(cmd.find("-o kjudge_task -lcublas"), std::string::npos) << cmd;
  EXPECT_NE(cmd.find("-DKJ_CHECKER -c kjudge_harness.cu -o kjudge_checker.o"), std::string::npos)
      << cmd;
  EXPECT_NE(cmd.find("kjudge_checker.o -o kjudge_checker -lcublas"), std::string::npos)
      << "the checker links no task source (the submission is one): " << cmd;
  EXPECT_NE(cmd.find("kjudge_worker.o submission.cu.o -o kjudge_worker -lcublas"),
            std::string::npos)
      << cmd;
  EXPECT_EQ(cmd.find("--no-isolate"), std::string::npos) << "nothing the checker could miss";
}

// The harness's objects are built apart, without the submission, and each build on them compiles
// the submission alone and links the same programs.
TEST(TaskBuild, TheHarnessBuildsApartAndTheSubmissionLinksOnIt) {
  TaskSpec t = load_task(kExamples / "vectoradd");
  t.libraries = {"cublas"};
  const std::string harness = task_harness_command(t, "sm_90a", "nvcc", true);
  EXPECT_EQ(harness.find("submission"), std::string::npos) << harness;
  EXPECT_NE(harness.find("-DKJ_CHECKER -c kjudge_harness.cu -o kjudge_checker.o &"),
            std::string::npos)
      << harness;
  EXPECT_NE(harness.find("wait $harness\nwait $checker\nwait $worker\n"), std::string::npos);
  const std::string on = task_build_command_on_harness(t, "sm_90a", "nvcc", true);
  EXPECT_EQ(on.find("-c kjudge_harness.cu"), std::string::npos) << on;
  EXPECT_EQ(on.find("-c kjudge_worker.cu"), std::string::npos) << on;
  EXPECT_EQ(on.find("wait $"), std::string::npos) << on;
  EXPECT_NE(on.find("-Xptxas=-v -c submission.cu"), std::string::npos) << on;
  for (const char* link : {"kjudge_harness.o submission.cu.o -o kjudge_task -lcublas",
                           "kjudge_checker.o -o kjudge_checker -lcublas",
                           "kjudge_worker.o submission.cu.o -o kjudge_worker -lcublas"})
    EXPECT_NE(on.find(link), std::string::npos) << link << "\n" << on;
  TempDir dir;
  testing::write_text(dir / "h.sh", harness);
  testing::write_text(dir / "b.sh", on);
  EXPECT_EQ(
      run_capture("sh -n " + (dir / "h.sh").string() + " && sh -n " + (dir / "b.sh").string()).rc,
      0);
}

// With a cache, the first build of a task keeps its harness's objects; the next submission of
// the task compiles only itself, and its programs hold its own kernels, not the first one's.
TEST(TaskBuild, ASecondSubmissionOfATaskReusesTheHarnessButLinksItsOwnCode) {
  if (!have_nvcc()) GTEST_SKIP() << "nvcc not installed";
  TempDir dir;
  const fs::path task = kExamples / "vectoradd";
  auto build = [&](const std::string& sub) {
    const fs::path out = dir / sub;
    auto r = run_capture(std::string(KJUDGE_BINARY) + " task build " + task.string() + " " +
                         (task / "submissions" / (sub + ".cu")).string() + " -q --keep-workspace" +
                         " --cache-dir " + (dir / "cache").string() + " --out " + out.string());
    EXPECT_EQ(r.rc, 0) << r.out;
    std::ifstream in(out / "task-run.json");
    return nlohmann::json::parse(in, nullptr, false);
  };
  const auto fast = build("fast"), naive = build("naive");
  ASSERT_FALSE(fast.is_discarded() || naive.is_discarded());
  EXPECT_TRUE(fast["build"]["harness_kept"].get<bool>()) << fast["build"];
  EXPECT_TRUE(naive["build"]["harness_kept"].get<bool>()) << naive["build"];
  EXPECT_FALSE(naive["build"]["from_cache"].get<bool>()) << "another submission: built anew";
  const std::string worker =
      run_capture("nm -C " + (dir / "naive/build/kjudge_worker").string()).out;
  EXPECT_NE(worker.find("add_one_block"), std::string::npos) << "naive.cu's own kernel";
  EXPECT_EQ(worker.find("add_vec4"), std::string::npos) << "nothing of fast.cu";
  EXPECT_FALSE(fs::exists(dir / "naive/build.harness")) << "the harness's workspace is removed";
}

// Isolation is the default, so a task whose reference may call into a source of its own gets
// told, when the checker fails to link, how to run it.
TEST(TaskBuild, ACheckerThatFailsToLinkTheTasksSourcesSaysWhatToDo) {
  TaskSpec t = load_task(kExamples / "vectoradd");
  t.sources.push_back("helper.cu");
  const std::string cmd = task_build_command(t, "sm_90a", "nvcc", true);
  EXPECT_NE(cmd.find("kjudge_checker || { echo 'kjudge: kjudge_checker"), std::string::npos) << cmd;
  EXPECT_NE(cmd.find("runs only with --no-isolate"), std::string::npos) << cmd;
  EXPECT_EQ(task_build_command(t, "sm_90a", "nvcc").find("--no-isolate"), std::string::npos);
  // The command stays one the shell reads.
  TempDir dir;
  testing::write_text(dir / "build.sh", cmd);
  EXPECT_EQ(run_capture("sh -n " + (dir / "build.sh").string()).rc, 0) << cmd;
}

TEST(TaskBuild, ArchFollowsTheGpu) {
  MachineInfo m;
  EXPECT_EQ(task_arch(m, ""), "sm_90a") << "no GPU: the H100's";
  m.gpus.push_back({0, "NVIDIA A100", "8.0", ""});
  EXPECT_EQ(task_arch(m, ""), "sm_80");
  m.gpus[0].compute_cap = "9.0";
  EXPECT_EQ(task_arch(m, ""), "sm_90a");
  EXPECT_EQ(task_arch(m, "sm_89"), "sm_89");
}

TEST(TaskBuild, WorkspaceHoldsTaskSubmissionAndHarness) {
  TempDir dir;
  TaskSpec t = load_task(kExamples / "vectoradd");
  write_task_workspace(t, "// my submission\n", dir / "ws");
  EXPECT_TRUE(fs::exists(dir / "ws/kjudge_harness.cu"));
  EXPECT_TRUE(fs::exists(dir / "ws/kjudge/tensor.cuh"));
  EXPECT_TRUE(fs::exists(dir / "ws/reference.cuh"));
  std::ifstream in(dir / "ws/submission.cu");
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first, "// my submission");
  t.files.push_back({"kjudge/tensor.cuh", t.files[0].source, false});
  EXPECT_THROW(write_task_workspace(t, "", dir / "ws2"), InputError);
}

// Every example task (one test each, so that a loaded machine's slow nvcc stays inside each
// test's limit), every submission: builds, and ptxas reports the submission's kernels.
std::vector<std::string> example_tasks() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& task : fs::directory_iterator(kExamples, ec))
    if (fs::exists(task.path() / "task.yml")) names.push_back(task.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

class EveryExampleTask : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryExampleTask, EachSubmissionBuildsWithNvcc) {
  if (!have_nvcc()) GTEST_SKIP() << "nvcc not installed";
  TempDir dir;
  const fs::path task = kExamples / GetParam();
  int built = 0;
  for (const auto& sub : fs::directory_iterator(task / "submissions")) {
    const fs::path out = dir / sub.path().stem();
    auto r = run_capture(std::string(KJUDGE_BINARY) + " task build " + task.string() + " " +
                         sub.path().string() + " -q --out " + out.string());
    EXPECT_EQ(r.rc, 0) << task << " " << sub.path() << "\n" << r.out;
    std::ifstream in(out / "task-run.json");
    auto j = nlohmann::json::parse(in, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << out;
    EXPECT_TRUE(j["build"]["ok"].get<bool>()) << j["build"]["log"];
    EXPECT_FALSE(j["build"]["kernels"].empty()) << sub.path() << ": ptxas reported no kernel";
    ++built;
  }
  EXPECT_GE(built, 2) << "every example brings a naive and a fast submission";
}

INSTANTIATE_TEST_SUITE_P(TaskBuild, EveryExampleTask, ::testing::ValuesIn(example_tasks()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

// An isolated build's two programs keep apart what the run keeps apart: the checker has no
// submission in it, the worker neither the result channel nor the reference.
TEST(TaskBuild, IsolatedProgramsHoldOnlyTheirOwnParts) {
  if (!have_nvcc()) GTEST_SKIP() << "nvcc not installed";
  TempDir dir;
  auto r =
      run_capture(std::string(KJUDGE_BINARY) + " task build " + (kExamples / "vectoradd").string() +
                  " " + (kExamples / "vectoradd/submissions/fast.cu").string() +
                  " --isolate -q --keep-workspace --out " + (dir / "o").string());
  ASSERT_EQ(r.rc, 0) << r.out;
  const fs::path ws = dir / "o/build";
  for (const char* p : {"kjudge_task", "kjudge_checker", "kjudge_worker"})
    EXPECT_TRUE(fs::exists(ws / p)) << p;
  auto symbols = [&](const char* program) {
    return run_capture("nm -C " + (ws / program).string()).out;
  };
  const std::string checker = symbols("kjudge_checker"), worker = symbols("kjudge_worker");
  EXPECT_NE(checker.find("kj::channel::nonce"), std::string::npos) << "nm works: the checker's";
  EXPECT_EQ(checker.find("custom_kernel"), std::string::npos);
  EXPECT_EQ(checker.find("add_vec4"), std::string::npos) << "no kernel of the submission";
  EXPECT_NE(worker.find("custom_kernel"), std::string::npos);
  EXPECT_EQ(worker.find("kj::channel"), std::string::npos);
  EXPECT_EQ(worker.find("ref_kernel"), std::string::npos);
  EXPECT_EQ(worker.find(".preinit_array"), std::string::npos);
}

TEST(TaskBuild, CompileErrorsAreTheSubmissionsFault) {
  if (!have_nvcc()) GTEST_SKIP() << "nvcc not installed";
  TempDir dir;
  std::ofstream(dir / "bad.cu")
      << "#include \"task.h\"\noutput_t custom_kernel(const input_t& in) { return nope; }\n";
  auto r = run_capture(std::string(KJUDGE_BINARY) + " task build " +
                       (kExamples / "vectoradd").string() + " " + (dir / "bad.cu").string() +
                       " --json -q --no-cache --out " + (dir / "o").string());
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.out.find("compile error"), std::string::npos);
  EXPECT_NE(r.out.find("nope"), std::string::npos) << "the compiler's message is in the report";
}

// A submission with code the loader runs before the harness's .preinit_array entry (an entry of
// its own, an IFUNC) is refused as a build failure; one with a mere early constructor builds (its
// constructor runs after the harness took the channel).
TEST(TaskBuild, CodeAheadOfTheHarnessIsRefused) {
  if (!have_nvcc()) GTEST_SKIP() << "nvcc not installed";
  TempDir dir;
  const fs::path cheats = fs::path(KJUDGE_SOURCE_DIR) / "tests/cheats/task";
  for (const auto& [file, what] : std::vector<std::pair<std::string, std::string>>{
           {"forge_channel_preinit.cu", ".preinit_array holds 2"},
           {"forge_channel_ifunc.cu", "IFUNC symbols (kj_cheat)"},
           {"forge_channel_early.cu", ""}}) {
    auto r = run_capture(std::string(KJUDGE_BINARY) + " task build " +
                         (kExamples / "vectoradd").string() + " " + (cheats / file).string() +
                         " --json -q --out " + (dir / file).string());
    if (what.empty()) {
      EXPECT_EQ(r.rc, 0) << file << "\n" << r.out;
      continue;
    }
    EXPECT_EQ(r.rc, 1) << file << "\n" << r.out;
    EXPECT_NE(r.out.find("refused: the program runs code before the harness takes its result"),
              std::string::npos)
        << file << "\n"
        << r.out;
    EXPECT_NE(r.out.find(what), std::string::npos) << file << "\n" << r.out;
  }
}

// A submission that defines a name the harness linked into its program, the profiler preloaded
// into it or the C library rely on (write, getenv even when hidden, the host clock) is refused as
// a build failure: the static linker would bind the harness's calls to it (symbol_scan.h). The
// honest submissions of every example task define none (TaskBuild/EveryExampleTask).
TEST(TaskBuild, ASubmissionThatDefinesANameTheHarnessReliesOnIsRefused) {
  if (!have_nvcc()) GTEST_SKIP() << "nvcc not installed";
  TempDir dir;
  const fs::path cheats = fs::path(KJUDGE_SOURCE_DIR) / "tests/cheats/task";
  for (const auto& [file, what] : std::vector<std::pair<std::string, std::string>>{
           {"define_write.cu", "defines 'write'"},
           {"define_getenv_hidden.cu", "defines 'getenv'"},
           {"define_steady_clock.cu", "defines '_ZNSt6chrono3_V212steady_clock3nowEv'"}}) {
    auto r = run_capture(std::string(KJUDGE_BINARY) + " task build " +
                         (kExamples / "vectoradd").string() + " " + (cheats / file).string() +
                         " --json -q --out " + (dir / file).string());
    EXPECT_EQ(r.rc, 1) << file << "\n" << r.out;
    EXPECT_NE(r.out.find("refused: the submission"), std::string::npos) << file << "\n" << r.out;
    EXPECT_NE(r.out.find(what), std::string::npos) << file << "\n" << r.out;
  }
}

// A submission over the size limit is refused before anything is written or compiled.
TEST(TaskBuild, ASubmissionOverTheSizeLimitIsRefusedUnread) {
  TempDir dir;
  TaskBuildOptions opt;
  opt.machine.nvcc_path = "/usr/bin/false";
  const TaskSpec task = load_task(kExamples / "vectoradd");
  const TaskBuild b =
      build_task(task, std::string(SolutionLimits{}.max_bytes + 1, ' '), dir / "ws", opt);
  EXPECT_FALSE(b.ok);
  EXPECT_FALSE(b.judge_fault);
  EXPECT_NE(b.failure.find("refused: the submission is"), std::string::npos) << b.failure;
  EXPECT_FALSE(fs::exists(dir / "ws"));
}

TEST(TaskBuild, ScaffoldBuildsAsItIs) {
  if (!have_nvcc()) GTEST_SKIP() << "nvcc not installed";
  TempDir dir;
  auto r =
      run_capture(std::string(KJUDGE_BINARY) + " task new mytask --dir " + dir.path().string());
  ASSERT_EQ(r.rc, 0) << r.out;
  r = run_capture(std::string(KJUDGE_BINARY) + " task new mytask --dir " + dir.path().string());
  EXPECT_EQ(r.rc, 2) << "never overwrites: " << r.out;
  // Built twice with one cache: the second build is the first one's, ptxas report included.
  for (const char* out : {"o1", "o2"}) {
    r = run_capture(std::string(KJUDGE_BINARY) + " task build " + (dir / "mytask").string() + " " +
                    (dir / "mytask/submission.cu").string() + " -q --cache-dir " +
                    (dir / "cache").string() + " --out " + (dir / out).string());
    EXPECT_EQ(r.rc, 0) << r.out;
  }
  std::ifstream in1(dir / "o1/task-run.json"), in2(dir / "o2/task-run.json");
  auto j1 = nlohmann::json::parse(in1), j2 = nlohmann::json::parse(in2);
  EXPECT_FALSE(j1["build"]["from_cache"].get<bool>());
  EXPECT_TRUE(j2["build"]["from_cache"].get<bool>());
  EXPECT_EQ(j1["build"]["kernels"], j2["build"]["kernels"]);
}

TEST(TaskCli, RunWithoutAGpuSaysSo) {
  if (!have_nvcc()) GTEST_SKIP() << "nvcc not installed";
  if (run_capture("nvidia-smi -L").rc == 0) GTEST_SKIP() << "this machine has a GPU";
  auto r =
      run_capture(std::string(KJUDGE_BINARY) + " task run " + (kExamples / "vectoradd").string() +
                  " " + (kExamples / "vectoradd/submissions/naive.cu").string());
  EXPECT_EQ(r.rc, 3) << r.out;
  EXPECT_NE(r.out.find("no GPU"), std::string::npos) << r.out;
}

// A stand-in machine for `task run` on a CPU: an nvidia-smi that names one H100 and an nvcc
// that answers --version and fails every compile. The run then stops at its build, after every
// decision about isolation is made and written down.
struct FakeGpuMachine {
  TempDir dir;
  FakeGpuMachine() {
    testing::write_text(dir / "bin/nvidia-smi",
                        "#!/bin/sh\ncase \"$1\" in --query-gpu=index,name,compute_cap,uuid*)\n"
                        "  echo '0, NVIDIA H100 80GB HBM3, 9.0, GPU-0000, 550.54.15';;\nesac\n");
    testing::write_text(dir / "bin/nvcc",
                        "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'Cuda compilation "
                        "tools, release 12.4, V12.4.131'; exit 0; fi\n"
                        "echo 'fake nvcc: no compiler here' >&2\nexit 1\n");
    for (const char* p : {"bin/nvidia-smi", "bin/nvcc"})
      fs::permissions(dir / p, fs::perms::owner_all);
  }
  // `kjudge task ARGS` on vectoradd's naive submission, writing OUT/task-run.json.
  testing::CmdResult task(const std::string& command, const std::string& out,
                          const std::string& args) {
    return run_capture("PATH=" + (dir / "bin").string() + ":$PATH " + KJUDGE_BINARY + " task " +
                       command + " " + (kExamples / "vectoradd").string() + " " +
                       (kExamples / "vectoradd/submissions/naive.cu").string() +
                       " --sandbox none --no-cache --out " + (dir / out).string() + " " + args);
  }
  nlohmann::json report(const std::string& out) {
    std::ifstream in(dir / out / "task-run.json");
    return nlohmann::json::parse(in, nullptr, false);
  }
};

bool builds_checker(const nlohmann::json& report) {
  return report["build"]["command"].get<std::string>().find("kjudge_checker") != std::string::npos;
}

TEST(TaskCli, RunIsIsolatedByDefaultAndBuildsForIt) {
  FakeGpuMachine m;
  auto r = m.task("run", "default", "");
  EXPECT_EQ(r.rc, 1) << "the fake nvcc fails the build: " << r.out;
  nlohmann::json j = m.report("default");
  ASSERT_TRUE(j.is_object()) << r.out;
  EXPECT_TRUE(j["isolate"].get<bool>()) << j.dump(1);
  EXPECT_FALSE(j.contains("isolate_why"));
  EXPECT_TRUE(builds_checker(j)) << "the run will be isolated, so the build makes its programs";
  EXPECT_EQ(r.out.find("one process"), std::string::npos) << r.out;

  for (const char* mode : {"benchmark", "leaderboard"}) {
    r = m.task("run", mode, std::string("--mode ") + mode);
    j = m.report(mode);
    EXPECT_TRUE(j["isolate"].get<bool>()) << mode;
    EXPECT_TRUE(builds_checker(j)) << mode;
  }
  r = m.task("run", "explicit", "--isolate");
  EXPECT_TRUE(m.report("explicit")["isolate"].get<bool>()) << r.out;
}

TEST(TaskCli, NoIsolateRunsInOneProcess) {
  FakeGpuMachine m;
  auto r = m.task("run", "one", "--mode benchmark --no-isolate");
  nlohmann::json j = m.report("one");
  ASSERT_TRUE(j.is_object()) << r.out;
  EXPECT_FALSE(j["isolate"].get<bool>());
  EXPECT_EQ(j["isolate_why"], "--no-isolate");
  EXPECT_FALSE(builds_checker(j)) << j["build"]["command"];
  EXPECT_EQ(r.out.find("note:"), std::string::npos) << "asked for: nothing to note\n" << r.out;
}

TEST(TaskCli, ProfileModeAndGpuModeTimingFallBackToOneProcessWithANote) {
  FakeGpuMachine m;
  auto r = m.task("run", "profile", "--mode profile");
  nlohmann::json j = m.report("profile");
  ASSERT_TRUE(j.is_object()) << r.out;
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_FALSE(j["isolate"].get<bool>());
  EXPECT_NE(j["isolate_why"].get<std::string>().find("Nsight Compute"), std::string::npos);
  EXPECT_FALSE(builds_checker(j));
  EXPECT_NE(r.out.find("kjudge: note: run in one process, not isolated: profile mode"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("warning"), std::string::npos) << "the default given up: a note\n" << r.out;
  EXPECT_TRUE(j["warnings"].empty());

  r = m.task("run", "gpumode", "--mode benchmark --timing gpumode -q");
  j = m.report("gpumode");
  EXPECT_FALSE(j["isolate"].get<bool>());
  EXPECT_NE(j["isolate_why"].get<std::string>().find("--timing gpumode"), std::string::npos);
  EXPECT_EQ(r.out.find("note:"), std::string::npos) << "-q: no note\n" << r.out;

  // Asked for by name, the same fallback is a warning, in the report too.
  r = m.task("run", "asked", "--mode profile --isolate -q");
  j = m.report("asked");
  EXPECT_FALSE(j["isolate"].get<bool>());
  EXPECT_NE(r.out.find("warning: --isolate cannot be honoured: profile mode"), std::string::npos)
      << r.out;
  ASSERT_EQ(j["warnings"].size(), 1u) << j.dump(1);
}

TEST(TaskCli, BuildMakesTheIsolatedProgramsByDefault) {
  FakeGpuMachine m;
  m.task("build", "b", "");
  nlohmann::json j = m.report("b");
  ASSERT_TRUE(j.is_object());
  EXPECT_TRUE(j["isolate"].get<bool>());
  EXPECT_TRUE(builds_checker(j));
  m.task("build", "b1", "--no-isolate");
  EXPECT_FALSE(builds_checker(m.report("b1")));
}

TEST(TaskCli, RunHelpGivesTheIsolatedDefault) {
  auto r = run_capture(std::string(KJUDGE_BINARY) + " task run --help");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("--isolate"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--no-isolate"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("The default"), std::string::npos) << r.out;
}

TEST(TaskCli, BadTaskIsAUsageErrorNamingTheFile) {
  TempDir dir;
  std::ofstream(dir / "task.yml") << "lang: cu\nfiles: []\n";
  std::ofstream(dir / "s.cu") << "\n";
  auto r = run_capture(std::string(KJUDGE_BINARY) + " task build " + dir.path().string() + " " +
                       (dir / "s.cu").string());
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("task.yml:2"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace kjudge::task
