// The service's Python work (issues 36 and 37): GPU MODE's Python tasks with kjudge's Python
// harness and KernelBench targets with `kernelbench eval`'s own run, through the real store
// (SQLite), the real harness and runner processes, the real HTTP API and the real `kjudge
// submit`. This machine has no GPU and no torch: the GPU is listed by hand (the judge's CUDA
// probe a script that passes), and the interpreter is a venv made here, either bare (no torch)
// or with tests/fixtures/standin_torch, a torch whose GPU is listed but refuses every use, so
// that each run gets as far as the GPU and no further.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "board/api_server.h"
#include "board/db.h"
#include "board/judge_service.h"
#include "board/service_python.h"
#include "board/store.h"
#include "kernelbench/data/problems.h"
#include "run/machine.h"
#include "serve_process.h"
#include "test_util.h"

namespace kjudge::board {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::TempDir;

// A venv of the system's Python, without pip: bare, or with the stand-in torch in its
// site-packages. Its bin/python is the interpreter the service is given.
std::string make_venv(const fs::path& dir, bool standin_torch) {
  const auto r = testing::run_capture("/usr/bin/python3 -m venv --without-pip " + dir.string());
  EXPECT_EQ(r.rc, 0) << r.out;
  if (standin_torch) {
    for (const auto& lib : fs::directory_iterator(dir / "lib"))
      fs::copy(fs::path(KJUDGE_SOURCE_DIR) / "tests/fixtures/standin_torch/torch",
               lib.path() / "site-packages/torch", fs::copy_options::recursive);
  }
  return (dir / "bin/python").string();
}

fs::path standin_torch_dir(const fs::path& venv) {
  for (const auto& lib : fs::directory_iterator(venv / "lib"))
    return lib.path() / "site-packages/torch";
  return {};
}

MachineInfo with_listed_gpu() {
  MachineInfo m = probe_machine();
  m.gpus.clear();
  GpuInfo g;
  g.index = 0;
  g.name = "NVIDIA H100 80GB HBM3";
  g.compute_cap = "9.0";
  m.gpus.push_back(g);
  return m;
}

// A task in GPU MODE's Python form, for kjudge's Python harness.
void write_python_task(const fs::path& dir) {
  fs::create_directories(dir);
  std::ofstream(dir / "task.yml")
      << "files:\n"
         "  - {name: submission.py, source: \"@SUBMISSION@\"}\n"
         "  - {name: reference.py, source: reference.py}\n"
         "lang: py\n"
         "description: adds one\n"
         "tests:\n  - {size: 8, seed: 1}\n"
         "benchmarks:\n  - {size: 1024, seed: 2}\n"
         "ranking_by: geom\n"
         "test_timeout: 60\nbenchmark_timeout: 60\nranked_timeout: 60\n";
  std::ofstream(dir / "reference.py")
      << "import torch\n\n"
         "def generate_input(size, seed):\n"
         "    g = torch.Generator(device='cuda').manual_seed(seed)\n"
         "    return torch.rand(size, device='cuda', generator=g)\n\n"
         "def ref_kernel(data):\n"
         "    return data + 1\n\n"
         "def check_implementation(data, output):\n"
         "    return bool(torch.allclose(ref_kernel(data), output)), ''\n";
}

// A KernelBench data folder of one problem.
void write_kernelbench(const fs::path& dir) {
  fs::create_directories(dir / "level1");
  std::ofstream(dir / "level1/1_Add.py") << "import torch\nimport torch.nn as nn\n\n"
                                            "class Model(nn.Module):\n"
                                            "    def forward(self, a, b):\n"
                                            "        return a + b\n\n"
                                            "def get_inputs():\n"
                                            "    return [torch.rand(16), torch.rand(16)]\n\n"
                                            "def get_init_inputs():\n"
                                            "    return []\n";
  // Level 4 builds Hugging Face models: it needs a local model cache.
  fs::create_directories(dir / "level4");
  fs::copy_file(dir / "level1/1_Add.py", dir / "level4/1_Tiny.py");
}

const char* const kModelNew =
    "import torch\nimport torch.nn as nn\n\n"
    "class ModelNew(nn.Module):\n"
    "    def forward(self, a, b):\n"
    "        return torch.add(a, b)\n";

const char* const kCustomKernel = "def custom_kernel(data):\n    return data + 1\n";

TEST(ServicePython, WithoutTorchItRefusesNamingTheInterpreter) {
  TempDir dir;
  const std::string bare = make_venv(dir / "bare", false);
  const ServicePython py(bare);
  EXPECT_NE(py.why().find("cannot import torch"), std::string::npos) << py.why();
  EXPECT_NE(py.why().find(bare), std::string::npos) << py.why();
  const ServicePython missing(dir / "no/such/python3");
  EXPECT_NE(missing.why().find((dir / "no/such/python3").string()), std::string::npos)
      << missing.why();
}

TEST(ServicePython, TorchThatCannotUseTheGpuFailsTheRecheck) {
  TempDir dir;
  const std::string python = make_venv(dir / "venv", true);
  ServicePython py(python);
  EXPECT_EQ(py.why(), "") << "torch imports and lists a GPU";
  EXPECT_FALSE(py.gpumode_runner().empty());
  EXPECT_FALSE(py.recheck_gpu(0));
  EXPECT_TRUE(py.failed_recheck());
  EXPECT_NE(py.why().find("cannot use GPU 0"), std::string::npos) << py.why();
  EXPECT_NE(py.why().find("busy or unavailable"), std::string::npos) << py.why();
  EXPECT_NE(py.why().find(dir.path().string()), std::string::npos) << py.why();
  // The GPU comes back: the refusal goes.
  std::ofstream(standin_torch_dir(dir / "venv") / "GPU_WORKS") << "";
  EXPECT_TRUE(py.recheck_gpu(0));
  EXPECT_EQ(py.why(), "");
}

TEST(ServicePython, OnlyTheMachinesWordsCallForARecheck) {
  EXPECT_TRUE(reads_as_gpu_unusable(
      "exit 4: kjudge harness: torch with a CUDA GPU is needed: RuntimeError: x"));
  EXPECT_TRUE(reads_as_gpu_unusable("cudaErrorNoDevice"));
  EXPECT_TRUE(reads_as_gpu_unusable("CUDA-capable device(s) is/are busy or unavailable"));
  EXPECT_FALSE(reads_as_gpu_unusable("test 0: mismatch at 3: 1.5 != 2.5"));
}

class PythonWork : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::make_unique<Store>(open_sqlite((dir_ / "board.db").string()));
    user_ = store_->create_user("alice", "user");
    admin_ = store_->create_user("root", "admin");
    write_python_task(dir_ / "tasks/add_py");
    write_kernelbench(dir_ / "kb");
    opt_.tasks["add_py"] = dir_ / "tasks/add_py";
    opt_.tasks["vectoradd"] = fs::path(KJUDGE_SOURCE_DIR) / "examples/tasks/vectoradd";
    opt_.kernelbench["kb"] = kernelbench::load_kernelbench(dir_ / "kb");
    opt_.eval.cache_dir = dir_ / "cache";
    opt_.eval.work_root = dir_ / "work";
    opt_.eval.gpu_probe_command = "true";  // the CUDA probe passes: the GPU answers CUDA
    opt_.gpu_type = "H100";
    opt_.python = make_venv(dir_ / "venv", true);
  }

  std::int64_t submit(const std::string& target, const std::string& mode, const std::string& code,
                      std::optional<std::int64_t> board = std::nullopt) {
    NewSubmission n;
    n.user_id = user_;
    n.leaderboard_id = board;
    n.target = target;
    n.mode = mode;
    n.file_name = "submission.py";
    n.code = code;
    return store_->submit(n);
  }

  bool wait_done(std::int64_t id, double seconds = 240) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < end) {
      if (store_->submission(id)->status == "done") return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  json only_result(std::int64_t id) {
    const auto runs = store_->runs_of(id);
    EXPECT_EQ(runs.size(), 1u);
    return runs.empty() ? json() : json::parse(runs.front().result);
  }

  static std::pair<int, json> call(int port, const std::string& method, const std::string& path,
                                   const std::string& token, const json& body = nullptr) {
    httplib::Client c("127.0.0.1", port);
    c.set_read_timeout(120, 0);
    httplib::Headers h = {{"Authorization", "Bearer " + token}};
    httplib::Result r =
        method == "GET" ? c.Get(path, h) : c.Post(path, h, body.dump(), "application/json");
    if (!r) return {0, nullptr};
    return {r->status, json::parse(r->body, nullptr, false)};
  }

  testing::CmdResult kjudge_submit(int port, const std::string& token, const std::string& args) {
    return testing::run_capture(std::string(KJUDGE_BINARY) + " submit --server http://127.0.0.1:" +
                                std::to_string(port) + " --token " + token + " " + args);
  }

  TempDir dir_;
  std::unique_ptr<Store> store_;
  std::int64_t user_ = 0, admin_ = 0;
  JudgeServiceOptions opt_;
};

// The harness really runs (staged files, the checker started in the sandbox's settings) and
// stops where torch first uses the GPU; the judge's own check agrees the GPU is unusable to
// torch, so the run is stored as the machine's: env_error, not charged, never ranked. From then
// on Python work is refused naming the interpreter, CUDA tasks are not, and what was queued
// stays queued for a worker whose Python works.
TEST_F(PythonWork, APythonTaskWhoseTorchCannotUseTheGpuIsTheMachinesFault) {
  JudgeService judge(*store_, opt_, with_listed_gpu());
  EXPECT_EQ(judge.check_target("task:add_py"), "");
  const std::int64_t id = submit("task:add_py", "test", kCustomKernel);
  ASSERT_TRUE(wait_done(id)) << store_->submission(id)->status;
  const json r = only_result(id);
  EXPECT_FALSE(store_->runs_of(id).front().passed);
  EXPECT_EQ(r.value("verdict", ""), "env_error") << r.dump(2);
  EXPECT_EQ(r.value("charged", true), false);
  EXPECT_EQ(r.value("harness", ""), "kjudge") << "the stage as `task run` writes it";
  EXPECT_NE(r.value("log", "").find("torch with a CUDA GPU is needed"), std::string::npos)
      << r.dump(2);
  EXPECT_NE(r.value("env_error", "").find(opt_.python), std::string::npos) << r.dump(2);

  const std::string why = judge.check_target("task:add_py");
  EXPECT_NE(why.find("cannot judge Python tasks"), std::string::npos) << why;
  EXPECT_NE(why.find(opt_.python), std::string::npos) << why;
  EXPECT_NE(judge.check_target("kernelbench:kb#L1/1").find("cannot use GPU"), std::string::npos);
  EXPECT_EQ(judge.check_target("task:vectoradd"), "") << "CUDA tasks do not need the Python";

  const std::int64_t later = submit("task:add_py", "test", kCustomKernel);
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  EXPECT_EQ(store_->submission(later)->status, "queued");
  EXPECT_TRUE(store_->runs_of(later).empty());
  judge.stop();
  // Never even claimed: this worker passed it over (a claim counts an attempt).
  const auto taken = store_->claim("probe/0");
  ASSERT_TRUE(taken);
  EXPECT_EQ(taken->submission_id, later);
  EXPECT_EQ(taken->attempts, 1);
}

// Torch answers the judge's check but the run fails on the GPU: the run's words are the run's,
// so it is charged (a submission could print them to pass its failure off as the machine's).
TEST_F(PythonWork, ARunThatFailsOnAGpuTheJudgeCanUseIsCharged) {
  std::ofstream(standin_torch_dir(dir_ / "venv") / "GPU_WORKS") << "";
  JudgeService judge(*store_, opt_, with_listed_gpu());
  const std::int64_t id = submit("task:add_py", "test", kCustomKernel);
  ASSERT_TRUE(wait_done(id)) << store_->submission(id)->status;
  const json r = only_result(id);
  EXPECT_FALSE(store_->runs_of(id).front().passed);
  EXPECT_FALSE(r.contains("verdict")) << r.dump(2);
  EXPECT_NE(r.value("log", "").find("busy or unavailable"), std::string::npos) << r.dump(2);
  EXPECT_EQ(judge.python_refusal(), "");
  judge.stop();
}

// `kernelbench eval`'s own run: the runner's setup finds no usable GPU, the judge's check
// agrees, and the results.jsonl line is stored as the run's result, not charged.
TEST_F(PythonWork, AKernelBenchRunWithoutAUsableGpuIsTheMachinesFault) {
  JudgeService judge(*store_, opt_, with_listed_gpu());
  std::string stored;
  ASSERT_NE(judge.kernelbench_problem("kernelbench:kb#level1/1_Add.py", &stored), nullptr);
  EXPECT_EQ(stored, "kernelbench:kb#L1/1");
  EXPECT_NE(judge.check_target("kernelbench:kb#L1/9").find("no problem"), std::string::npos);
  EXPECT_NE(judge.check_target("kernelbench:nope#L1/1").find("no KernelBench data folder"),
            std::string::npos);
  unsetenv("HF_HOME");
  EXPECT_NE(judge.check_target("kernelbench:kb#L4/1").find("HF_HOME"), std::string::npos)
      << judge.check_target("kernelbench:kb#L4/1");
  const std::int64_t id = submit(stored, "benchmark", kModelNew);
  ASSERT_TRUE(wait_done(id)) << store_->submission(id)->status;
  const json r = only_result(id);
  EXPECT_EQ(r.value("kind", ""), "kjudge-kernelbench-result") << r.dump(2);
  EXPECT_EQ(r.value("verdict", ""), "env_error") << r.dump(2);
  EXPECT_EQ(r.value("charged", true), false);
  EXPECT_EQ(r.value("key", ""), "L1/1#0");
  EXPECT_NE(r.dump().find("busy or unavailable"), std::string::npos) << r.dump(2);
  EXPECT_NE(judge.python_refusal().find(opt_.python), std::string::npos);
  judge.stop();
}

// The runner reports the machine's fault, but the judge's own check of the interpreter passes:
// the report is not taken at its word (a forged one would skip its reward); the run is refused,
// charged.
TEST_F(PythonWork, AKernelBenchEnvErrorTheJudgeCannotConfirmIsCharged) {
  std::ofstream(standin_torch_dir(dir_ / "venv") / "GPU_WORKS") << "";
  JudgeService judge(*store_, opt_, with_listed_gpu());
  const std::int64_t id = submit("kernelbench:kb#L1/1", "judge", kModelNew);
  ASSERT_TRUE(wait_done(id)) << store_->submission(id)->status;
  const json r = only_result(id);
  EXPECT_EQ(r.value("verdict", ""), "refused") << r.dump(2);
  EXPECT_EQ(r.value("reported_verdict", ""), "env_error");
  EXPECT_EQ(r.value("charged", false), true);
  EXPECT_EQ(judge.python_refusal(), "");
  judge.stop();
}

// A service whose Python has no torch refuses Python boards and Python work when they are
// registered or submitted, over HTTP, naming the interpreter; CUDA task boards are unaffected.
TEST_F(PythonWork, WithoutTorchPythonWorkIsRefusedNamingTheInterpreter) {
  opt_.python = make_venv(dir_ / "bare", false);
  JudgeService judge(*store_, opt_, with_listed_gpu());
  ApiServer api(*store_, judge);
  ASSERT_TRUE(api.start("127.0.0.1", 0));
  const std::string admin = store_->issue_token(admin_, "test");
  const std::string alice = store_->issue_token(user_, "test");
  auto [st, body] = call(api.port(), "POST", "/api/v1/leaderboards", admin,
                         {{"name", "add-py"}, {"task", "add_py"}});
  EXPECT_EQ(st, 400) << body;
  EXPECT_EQ(body.value("field", ""), "task");
  EXPECT_NE(body.value("error", "").find("cannot import torch"), std::string::npos) << body;
  EXPECT_NE(body.value("error", "").find(opt_.python), std::string::npos) << body;
  EXPECT_EQ(call(api.port(), "POST", "/api/v1/leaderboards", admin,
                 {{"name", "va"}, {"task", "vectoradd"}})
                .first,
            201);
  auto [kst, kb] = call(api.port(), "POST", "/api/v1/submissions", alice,
                        {{"target", "kernelbench:kb#L1/1"}, {"code", kModelNew}});
  EXPECT_EQ(kst, 400) << kb;
  EXPECT_NE(kb.value("error", "").find(opt_.python), std::string::npos) << kb;
  auto [hst, health] = call(api.port(), "GET", "/api/v1/health", "");
  EXPECT_EQ(hst, 200);
  EXPECT_NE(health.value("python_refused", "").find("cannot import torch"), std::string::npos)
      << health;
  api.stop();
  judge.stop();
}

// `kjudge submit` end to end: a Python task's board, found by the file's #!POPCORN headers,
// judged (as far as the GPU), its verdict back through the long poll with the machine's exit
// code; the next submission is refused naming the interpreter. A KernelBench target likewise.
TEST_F(PythonWork, KjudgeSubmitReachesPythonBoardsAndKernelBench) {
  JudgeService judge(*store_, opt_, with_listed_gpu());
  ApiServer api(*store_, judge);
  ASSERT_TRUE(api.start("127.0.0.1", 0));
  const std::string admin = store_->issue_token(admin_, "test");
  const std::string alice = store_->issue_token(user_, "test");
  ASSERT_EQ(call(api.port(), "POST", "/api/v1/leaderboards", admin,
                 {{"name", "add-py"}, {"task", "add_py"}})
                .first,
            201);
  // Its page asks for Python.
  httplib::Client page("127.0.0.1", api.port());
  auto html = page.Get("/leaderboards/add-py", {{"Cookie", "kjudge_token=" + alice}});
  ASSERT_TRUE(html);
  EXPECT_NE(html->body.find("def custom_kernel(data)"), std::string::npos) << html->body;
  const fs::path sub = dir_ / "sub.py";
  std::ofstream(sub) << "#!POPCORN leaderboard add-py\n#!POPCORN gpu H100\n" << kCustomKernel;
  auto r = kjudge_submit(api.port(), alice, sub.string() + " --wait 200");
  EXPECT_EQ(r.rc, 3) << r.out;  // the machine's: exit_code::environment
  EXPECT_NE(r.out.find("env_error"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("task:add_py leaderboard"), std::string::npos) << r.out;
  auto [st, board] = call(api.port(), "GET", "/api/v1/leaderboards/add-py", alice);
  EXPECT_EQ(st, 200);
  EXPECT_TRUE(board["rankings"]["H100"].empty()) << board;
  r = kjudge_submit(api.port(), alice, sub.string());
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.out.find("cannot judge Python tasks"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(opt_.python), std::string::npos) << r.out;
  api.stop();
  judge.stop();

  // A fresh service (its Python asked anew) for KernelBench through `kjudge submit`.
  JudgeService again(*store_, opt_, with_listed_gpu());
  ApiServer api2(*store_, again);
  ASSERT_TRUE(api2.start("127.0.0.1", 0));
  const fs::path model = dir_ / "model_new.py";
  std::ofstream(model) << kModelNew;
  r = kjudge_submit(api2.port(), alice,
                    "--target 'kernelbench:kb#level1/1_Add.py' " + model.string() + " --wait 200");
  EXPECT_EQ(r.rc, 3) << r.out;
  EXPECT_NE(r.out.find("kernelbench:kb#L1/1 judge"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("env_error"), std::string::npos) << r.out;
  api2.stop();
  again.stop();
}

// `kjudge serve --kernelbench NAME=DIR --python P` as a process: the folder is loaded, the
// interpreter asked at start, and its refusal is what health and a submission say.
TEST_F(PythonWork, ServeTakesKernelBenchFoldersAndItsPython) {
  const std::string bare = make_venv(dir_ / "bare", false);
  const fs::path db = dir_ / "served.db";
  const auto added =
      testing::run_capture(std::string(KJUDGE_BINARY) + " users add bob --db " + db.string());
  ASSERT_EQ(added.rc, 0) << added.out;
  const std::string bob = added.out.substr(0, added.out.find('\n'));
  testing::ServeProcess s(KJUDGE_BINARY,
                          {"--db", db.string(), "--kernelbench", "kb=" + (dir_ / "kb").string(),
                           "--python", bare, "--cache-dir", (dir_ / "cache").string()});
  ASSERT_GT(s.port(), 0);
  auto [hst, health] = call(s.port(), "GET", "/api/v1/health", "");
  EXPECT_EQ(hst, 200);
  EXPECT_NE(health.value("python_refused", "").find(bare), std::string::npos) << health;
  auto [st, r] = call(s.port(), "POST", "/api/v1/submissions", bob,
                      {{"target", "kernelbench:kb#L1/1"}, {"code", kModelNew}});
  EXPECT_EQ(st, 400) << r;
  EXPECT_EQ(r.value("field", ""), "target");
  EXPECT_NE(r.value("error", "").find("cannot import torch"), std::string::npos) << r;
  auto [nst, n] = call(s.port(), "POST", "/api/v1/submissions", bob,
                       {{"target", "kernelbench:kb#L2/1"}, {"code", kModelNew}});
  EXPECT_EQ(nst, 400);
  EXPECT_NE(n.value("error", "").find("has no problem"), std::string::npos) << n;
  EXPECT_EQ(s.stop(), 0);
}

}  // namespace
}  // namespace kjudge::board
