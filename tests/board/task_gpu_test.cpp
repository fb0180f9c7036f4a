// A worker without a usable GPU never charges a task's submitter (issue 32): before, on such a
// machine a task submission was judged `failed` with cudaErrorInsufficientDriver. Real SQLite,
// real nvcc builds of an example task, and a real run of it on this machine, which has no GPU:
// the GPU is listed by hand and the probe is a script, so each side of the line can be asked.
#include "board/task_gpu.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "board/db.h"
#include "board/judge_service.h"
#include "board/store.h"
#include "run/machine.h"
#include "run/sandbox.h"
#include "test_util.h"

namespace kjudge::board {
namespace {

namespace fs = std::filesystem;

MachineInfo with_gpu(bool listed) {
  MachineInfo m = probe_machine();  // this machine's nvcc; no GPU
  m.gpus.clear();
  if (listed) {
    GpuInfo g;
    g.index = 0;
    g.name = "NVIDIA H100 80GB HBM3";
    g.compute_cap = "9.0";
    m.gpus.push_back(g);
  }
  return m;
}

TaskGpuOptions probe_by(const testing::TempDir& dir, const std::string& command) {
  TaskGpuOptions o;
  o.probe_command = command;
  o.cache_dir = dir / "cache";
  o.work_root = dir / "work";
  return o;
}

TEST(TaskGpu, NoGpuOrAFailedProbeRefusesTasks) {
  testing::TempDir dir;
  TaskGpu none(probe_by(dir, "true"), with_gpu(false));
  EXPECT_FALSE(none.usable());
  EXPECT_NE(none.why().find("no GPU"), std::string::npos) << none.why();
  TaskGpu good(probe_by(dir, "true"), with_gpu(true));
  EXPECT_TRUE(good.usable());
  EXPECT_EQ(good.why(), "");
  TaskGpu bad(probe_by(dir, "echo cudaErrorInsufficientDriver; exit 1"), with_gpu(true));
  EXPECT_FALSE(bad.usable());
  EXPECT_NE(bad.why().find("cudaErrorInsufficientDriver"), std::string::npos) << bad.why();
}

TEST(TaskGpu, ARecheckSeesTheGpuGoAndComeBack) {
  testing::TempDir dir;
  const fs::path flag = dir / "broken";
  TaskGpu gpu(probe_by(dir, "test ! -e " + flag.string()), with_gpu(true));
  EXPECT_TRUE(gpu.usable());
  testing::write_text(flag, "");
  EXPECT_TRUE(gpu.usable()) << "answered from memory";
  EXPECT_FALSE(gpu.recheck());
  fs::remove(flag);
  EXPECT_TRUE(gpu.recheck());
}

// `kjudge serve` leaves the work root to the evaluator: the probe must still run in an absolute
// folder of its own, or the sandbox cannot bind it and every task is refused on a good GPU (on
// the H100, 2026-11-27: "the GPU probe failed on GPU 0: ", nothing more).
TEST(TaskGpu, WithNoWorkRootTheProbeRunsInAnAbsoluteFolderOfItsOwn) {
  testing::TempDir dir;
  TaskGpuOptions o = probe_by(dir, "pwd; exit 3");
  o.work_root.clear();
  TaskGpu plain(o, with_gpu(true));
  EXPECT_FALSE(plain.usable());
  const std::string why = plain.why();
  const std::string where = why.substr(why.rfind(": ") + 2);
  EXPECT_TRUE(fs::path(where).is_absolute()) << why;
  EXPECT_EQ(where.rfind(fs::temp_directory_path().string(), 0), 0u) << why;

  o.probe_command = "true";
  o.step.sandbox = true;
  SandboxPolicy policy;
  policy.workspace = dir.path();
  std::string unusable;
  if (!sandbox_available(policy, &unusable))
    GTEST_SKIP() << "bubblewrap unusable here: " << unusable;
  TaskGpu sandboxed(o, with_gpu(true));
  EXPECT_TRUE(sandboxed.usable()) << sandboxed.why();
}

// A probe that fails without a word still says how it ended.
TEST(TaskGpu, ASilentFailureSaysHowTheProbeEnded) {
  testing::TempDir dir;
  TaskGpu gpu(probe_by(dir, "exit 7"), with_gpu(true));
  EXPECT_FALSE(gpu.usable());
  EXPECT_NE(gpu.why().find("exit 7, no output"), std::string::npos) << gpu.why();
}

class TaskJobs : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::make_unique<Store>(open_sqlite((dir_ / "board.db").string()));
    user_ = store_->create_user("alice", "user");
    opt_.tasks["vectoradd"] = fs::path(KJUDGE_SOURCE_DIR) / "examples/tasks/vectoradd";
    // The build cache the other tests share: the task's three nvcc builds happen once.
    opt_.eval.cache_dir = fs::path(KJUDGE_BINARY).parent_path() / "test-cache";
    opt_.eval.work_root = dir_ / "work";
    opt_.eval.gpu_probe_command = "true";  // a GPU that works
  }

  std::int64_t submit_task() {
    NewSubmission n;
    n.user_id = user_;
    n.target = "task:vectoradd";
    n.mode = "test";
    n.file_name = "submission.cu";
    n.code = testing::read_text(fs::path(KJUDGE_SOURCE_DIR) /
                                "examples/tasks/vectoradd/submissions/fast.cu");
    return store_->submit(n);
  }

  // Waits until `done` holds or `seconds` pass.
  template <class F>
  bool wait_for(F done, double seconds) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < end) {
      if (done()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return done();
  }

  testing::TempDir dir_;
  std::unique_ptr<Store> store_;
  std::int64_t user_ = 0;
  JudgeServiceOptions opt_;
};

// No GPU: a task submission is refused when it is made (SQLite: this instance is the only
// judge), and one already queued stays queued, never judged `failed`.
TEST_F(TaskJobs, WithoutAGpuTasksAreRefusedNotFailed) {
  const std::int64_t id = submit_task();  // queued before the service started
  JudgeService judge(*store_, opt_, with_gpu(false));
  ASSERT_TRUE(wait_for([&] { return !judge.task_refusal().empty(); }, 10));
  EXPECT_NE(judge.check_target("task:vectoradd").find("cannot judge tasks"), std::string::npos)
      << judge.check_target("task:vectoradd");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(store_->submission(id)->status, "queued");
  EXPECT_TRUE(store_->runs_of(id).empty());
  judge.stop();
}

// The GPU answers at start, then the run fails with the machine's error (this machine has no
// GPU: the CUDA runtime says so) and the probe now fails too: nothing is recorded, the job is
// back in the queue, and this worker takes no more task jobs.
TEST_F(TaskJobs, AMachineFaultTheProbeConfirmsRequeuesTheJob) {
  // The probe passes once (at the worker's start) and fails from then on.
  const std::string count = (dir_ / "probes").string();
  opt_.eval.gpu_probe_command = "n=$(cat " + count + " 2>/dev/null || echo 0); echo $((n + 1)) > " +
                                count + "; test $n -eq 0";
  JudgeService judge(*store_, opt_, with_gpu(true));
  const std::int64_t id = submit_task();
  // Judged instead of refused ends the wait at once, showing what the run said.
  ASSERT_TRUE(wait_for(
      [&] { return !judge.task_refusal().empty() || store_->submission(id)->status == "done"; },
      240))
      << "the task was never run";
  ASSERT_NE(store_->submission(id)->status, "done") << store_->runs_of(id).front().result;
  EXPECT_TRUE(wait_for([&] { return store_->submission(id)->status == "queued"; }, 10))
      << store_->submission(id)->status;
  EXPECT_EQ(testing::read_text(dir_ / "probes"), "2\n") << "asked at the start, then after the run";
  EXPECT_TRUE(store_->runs_of(id).empty()) << store_->runs_of(id).front().result;
  judge.stop();
}

// The run names a machine fault, but the judge's probe passes: the program said it, the
// program's submitter is charged.
TEST_F(TaskJobs, AFaultOnlyTheProgramReportsIsCharged) {
  JudgeService judge(*store_, opt_, with_gpu(true));
  const std::int64_t id = submit_task();
  ASSERT_TRUE(wait_for([&] { return store_->submission(id)->status == "done"; }, 240));
  const auto runs = store_->runs_of(id);
  ASSERT_FALSE(runs.empty());
  EXPECT_FALSE(runs.front().passed);
  EXPECT_EQ(judge.task_refusal(), "");
  judge.stop();
}

}  // namespace
}  // namespace kjudge::board
