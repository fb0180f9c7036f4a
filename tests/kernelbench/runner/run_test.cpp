// The runner protocol from the judge's side: the request, the report accepted or refused field
// by field, the report held to what the control channel committed and to the judge's clock, and
// the real runner started in the sandbox on a machine without torch (this one): its setup
// stage fails with a report, the machine's fault.
#include "kernelbench/runner/run.h"

#include <gtest/gtest.h>

#include <chrono>

#include "core/input_error.h"
#include "run/sandbox.h"
#include "test_util.h"

namespace kjudge::kernelbench {
namespace {

namespace fs = std::filesystem;
using kjudge::testing::TempDir;
using nlohmann::json;

const fs::path kRunner = fs::path(KJUDGE_SOURCE_DIR) / "python/kjudge_kernelbench_runner.py";

std::string report(const json& j) { return j.dump() + "\n"; }

json good_report() {
  return {{"protocol", 1},
          {"nonce", "n1"},
          {"status", "ok"},
          {"trials", json::array({{{"ok", true}, {"max_abs", 0.0}, {"elements", 16}}})},
          {"timing",
           {{"timed", true},
            {"pairs", json::array({{{"sol_ms", 1.0},
                                    {"ref_ms", 2.0},
                                    {"cmp_ms", nullptr},
                                    {"sol_dev_ms", 1.1},
                                    {"ref_dev_ms", 2.1},
                                    {"cmp_dev_ms", nullptr},
                                    {"ok", true},
                                    {"order", "sr"}}})}}},
          {"torch_patched", json::array()},
          {"tampered", json::array()},
          {"seconds", {{"setup", 1.5}}}};
}

std::string refusal(const json& j, const std::string& nonce = "n1") {
  RunOutcome o;
  try {
    parse_report(report(j), nonce, "report", o);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(KernelBenchRequest, CarriesWhatTheRunnerReadsAndNotTheSecret) {
  Request q;
  q.trial_seeds = {5, 6};
  q.secret = 0xfeedface;
  q.timing.trials = 7;
  q.gpu_memory_bytes = 1 << 30;
  const json j = request_json(q, "/ws/reference.py", "/ws/solution.py", "n1");
  EXPECT_EQ(j["protocol"], 1);
  EXPECT_EQ(j["nonce"], "n1");
  EXPECT_EQ(j["reference_path"], "/ws/reference.py");
  EXPECT_EQ(j["seed"], 42);
  EXPECT_EQ(j["trial_seeds"], json({5, 6}));
  EXPECT_EQ(j["atol"], 1e-2);
  EXPECT_EQ(j["timing"]["trials"], 7);
  EXPECT_EQ(j["gpu_memory_bytes"], 1 << 30);
  EXPECT_EQ(j.dump().find(std::to_string(0xfeedface)), std::string::npos);
}

TEST(KernelBenchReport, AGoodReportIsRead) {
  RunOutcome o;
  parse_report(report(good_report()), "n1", "report", o);
  EXPECT_EQ(o.status, RunStatus::ok);
  ASSERT_EQ(o.trials.size(), 1u);
  EXPECT_TRUE(o.trials[0].ok);
  ASSERT_EQ(o.pairs.size(), 1u);
  EXPECT_EQ(o.pairs[0].ref_ms, 2.0);
  EXPECT_TRUE(std::isnan(o.pairs[0].cmp_ms));
  EXPECT_EQ(o.phase_seconds["setup"], 1.5);
}

TEST(KernelBenchReport, AnythingMalformedOrForeignIsRefusedNamingTheField) {
  json j = good_report();
  EXPECT_NE(refusal(j, "other").find("nonce"), std::string::npos);
  j["protocol"] = 2;
  EXPECT_NE(refusal(j).find("protocol"), std::string::npos);
  j = good_report();
  j["status"] = "great";
  EXPECT_NE(refusal(j).find("status"), std::string::npos);
  j = good_report();
  j["timing"]["pairs"][0]["sol_ms"] = 0;
  EXPECT_NE(refusal(j).find("sol_ms': not a positive time"), std::string::npos) << refusal(j);
  j = good_report();
  j["timing"]["pairs"][0]["cmp_dev_ms"] = 1.0;
  EXPECT_NE(refusal(j).find("cmp_dev_ms"), std::string::npos);
  j = good_report();
  j["timing"]["timed"] = false;
  EXPECT_NE(refusal(j).find("timing.timed"), std::string::npos);
  j = good_report();
  j["trials"] = json::array();
  EXPECT_NE(refusal(j).find("no correctness trial"), std::string::npos);
  j = good_report();
  j["trials"][0]["why"] = "passed yet why";
  EXPECT_NE(refusal(j).find("given for a trial that passed"), std::string::npos);
  j = good_report();
  j["watch"] = json::array({1});
  EXPECT_NE(refusal(j).find("watch"), std::string::npos);
  RunOutcome o;
  EXPECT_THROW(parse_report(report(good_report()) + "more\n", "n1", "report", o), InputError);
  EXPECT_THROW(parse_report("", "n1", "report", o), InputError);
  json e = {{"protocol", 1}, {"nonce", "n1"}, {"status", "error"}};
  EXPECT_NE(refusal(e).find("error"), std::string::npos);
}

// A log as the control server writes it for the good report's one pair.
ControlLog committed(double sol_ms, std::int64_t wall_ns) {
  ControlLog log;
  log.served = true;
  log.timed = true;
  ControlEvent key;
  key.kind = ControlEvent::Kind::pair;
  key.answer_ns = 1000000000;
  ControlEvent done;
  done.kind = ControlEvent::Kind::done;
  done.at_ns = key.answer_ns + wall_ns;
  done.sol_ms = sol_ms;
  done.ref_ms = 2.0;
  done.sol_dev_ms = 1.1;
  done.ref_dev_ms = 2.1;
  done.ok = true;
  log.events = {key, done};
  return log;
}

TEST(KernelBenchReport, TheReportMustSayWhatWasCommittedWithinTheJudgesClock) {
  RunOutcome o;
  parse_report(report(good_report()), "n1", "report", o);
  o.control = committed(1.0, 10000000);  // 10 ms between the key and the done
  EXPECT_EQ(control_mismatch(o), "");
  o.control = committed(0.5, 10000000);  // the report rewritten after the fact
  EXPECT_NE(control_mismatch(o).find("says otherwise"), std::string::npos);
  o.control = committed(1.0, 1000000);  // 3.2 ms of GPU time in 1 ms of the judge's
  EXPECT_NE(control_mismatch(o).find("only 1.000 ms passed"), std::string::npos)
      << control_mismatch(o);
  o.control = committed(1.0, 10000000);
  o.control.events.pop_back();
  EXPECT_NE(control_mismatch(o).find("it committed 0"), std::string::npos);
  o.control = committed(1.0, 10000000);
  o.control.timed = false;
  EXPECT_NE(control_mismatch(o).find("never let in"), std::string::npos);
}

Runner runner_here(bool sandbox) {
  Runner r;
  r.python = triton::probe_python("/usr/bin/python3");
  r.script = kRunner;
  r.step.sandbox = sandbox;
  r.step.bwrap = locate_bwrap();
  r.step.memory_limit_bytes = 2ull << 30;
  r.timeout_s = 30;
  r.wait_allowance_s = 30;
  return r;
}

Request relu_request() {
  Request q;
  q.reference_code =
      "import torch\nclass Model(torch.nn.Module):\n    def forward(self, x):\n"
      "        return torch.relu(x)\ndef get_inputs():\n    return [torch.rand(8)]\n"
      "def get_init_inputs():\n    return []\n";
  q.solution_code = "import torch\nclass ModelNew(torch.nn.Module):\n    pass\n";
  q.problem = "L1/19";
  q.trial_seeds = {1, 2};
  q.secret = 9;
  return q;
}

void expect_no_torch(const RunOutcome& o) {
  ASSERT_EQ(o.status, RunStatus::error) << o.detail << "\n" << o.log;
  EXPECT_EQ(o.error.stage, "setup");
  EXPECT_EQ(o.error.exception_type, "ModuleNotFoundError");
  EXPECT_NE(o.error.message.find("torch"), std::string::npos);
  EXPECT_TRUE(o.control.served);
  ASSERT_FALSE(o.control.events.empty());
  EXPECT_EQ(o.control.events[0].kind, ControlEvent::Kind::hello);
  EXPECT_TRUE(o.control.violation.empty());
  EXPECT_TRUE(o.tampered.empty());
}

TEST(KernelBenchRealRunner, WithoutTorchTheSetupStageFailsWithAReport) {
  if (std::system("/usr/bin/python3 -c 'import torch' 2>/dev/null") == 0)
    GTEST_SKIP() << "this machine has torch";
  TempDir dir;
  GpuGate gate;
  const RunOutcome o = run_kernelbench(runner_here(false), relu_request(), dir / "ws", gate);
  expect_no_torch(o);
  // The run's own files are gone; the extension folder stays (the next run of the code reads it).
  EXPECT_TRUE(fs::is_directory(dir / "ws/ext"));
  for (const auto& e : fs::directory_iterator(dir / "ws"))
    EXPECT_EQ(e.path().filename().string().rfind("run-", 0), std::string::npos) << e.path();
}

TEST(KernelBenchRealRunner, InTheSandboxToo) {
  if (std::system("/usr/bin/python3 -c 'import torch' 2>/dev/null") == 0)
    GTEST_SKIP() << "this machine has torch";
  SandboxPolicy probe;
  probe.bwrap = locate_bwrap();
  std::string why;
  if (!sandbox_available(probe, &why)) GTEST_SKIP() << "no sandbox here: " << why;
  TempDir dir;
  GpuGate gate;
  expect_no_torch(run_kernelbench(runner_here(true), relu_request(), dir / "ws", gate));
}

const fs::path kFake = fs::path(KJUDGE_SOURCE_DIR) / "tests/fixtures/fake_kernelbench_runner.py";

RunOutcome fake_run(const std::string& mode, double timeout_s = 20) {
  TempDir dir;
  GpuGate gate;
  Runner r = runner_here(false);
  r.script = kFake;
  r.timeout_s = timeout_s;
  Request q = relu_request();
  q.solution_code = "#fake " + mode + "\n";
  return run_kernelbench(r, q, dir / "ws", gate);
}

TEST(KernelBenchFakeRunner, ARunInOrderIsReadAndCheckedAgainstItsCommitments) {
  const RunOutcome o = fake_run("ok");
  ASSERT_EQ(o.status, RunStatus::ok) << o.detail << "\n" << o.log;
  ASSERT_EQ(o.pairs.size(), 1u);
  EXPECT_TRUE(o.control.timed);
  EXPECT_EQ(control_mismatch(o), "");
  EXPECT_EQ(fake_run("edited").status, RunStatus::refused);
  EXPECT_NE(fake_run("edited").detail.find("says otherwise"), std::string::npos);
  const RunOutcome n = fake_run("nonce");
  EXPECT_EQ(n.status, RunStatus::refused);
  EXPECT_NE(n.detail.find("nonce"), std::string::npos) << n.detail;
  const RunOutcome t = fake_run("turn");
  EXPECT_EQ(t.status, RunStatus::refused);
  EXPECT_NE(t.detail.find("outside the timed phase"), std::string::npos) << t.detail;
  const RunOutcome x = fake_run("exit");
  EXPECT_EQ(x.status, RunStatus::crashed);
  EXPECT_NE(x.detail.find("without a report"), std::string::npos) << x.detail;
}

TEST(KernelBenchFakeRunner, ARunPastItsOwnTimeIsKilled) {
  const auto t0 = std::chrono::steady_clock::now();
  const RunOutcome o = fake_run("sleep", 1.5);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(o.status, RunStatus::timeout) << o.detail;
  EXPECT_TRUE(o.control.killed);
  EXPECT_LT(s, 20.0);  // not the 60 s it sleeps, nor the wait allowance
}

TEST(KernelBenchRealRunner, AMissingScriptIsTheJudgesFault) {
  TempDir dir;
  GpuGate gate;
  Runner r = runner_here(false);
  r.script = dir / "nope.py";
  const RunOutcome o = run_kernelbench(r, relu_request(), dir / "ws", gate);
  EXPECT_EQ(o.status, RunStatus::crashed);  // python ran, the script was not there
  EXPECT_THROW(locate_kernelbench_runner((dir / "nope.py").string()), std::runtime_error);
  EXPECT_EQ(locate_kernelbench_runner(kRunner.string()), kRunner);
}

}  // namespace
}  // namespace kjudge::kernelbench
