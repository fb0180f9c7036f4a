// The grading pipeline end to end, on problems whose "build" and "test" are shell scripts, so
// every verdict path runs in milliseconds without nvcc or a GPU. The nvcc-built example pack is
// exercised by cli_test.
#include "eval/evaluator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <thread>

#include "eval/hidden_lines.h"
#include "eval/pass_at_k.h"
#include "eval/sanitizer.h"
#include "run/cgroup.h"
#include "run/sandbox.h"
#include "test_util.h"

namespace kjudge {
namespace {

// build: refuses a solution containing SYNTAX_ERROR, else "compiles" solution.sh into run.sh and
// counts the compile in $KJ_BUILD_COUNTER. test: runs run.sh.
Problem shell_problem(const std::string& id, double timeout = 5) {
  Problem p;
  p.task_id = id;
  p.group = "shell";
  p.difficulty = "easy";
  p.host_only = true;
  p.build_command =
      "if grep -q SYNTAX_ERROR solution.sh; then echo 'solution.sh:1: error: bad' >&2; exit 1; fi; "
      "echo built >> \"$KJ_BUILD_COUNTER\"; cp solution.sh run.sh";
  p.test_command = "sh run.sh";
  p.test_files = {{"test/check.txt", "hidden"}};
  p.timeout_seconds = timeout;
  return p;
}

std::pair<std::string, int> K(const std::string& id, int sample) { return {id, sample}; }

Solution sol(const std::string& id, const std::string& script, int sample = 0) {
  Solution s;
  s.task_id = id;
  s.sample = sample;
  s.files = {{"solution.sh", script}};
  return s;
}

MachineInfo host_machine() {
  MachineInfo m;
  m.nvcc_path = "/usr/bin/true";
  m.cuda_version = "13.0";
  m.nvcc_version_line = "Cuda compilation tools, release 13.0";
  m.cpu_count = 2;
  return m;
}

class EvaluatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    counter_ = dir_ / "builds.count";
    setenv("KJ_BUILD_COUNTER", counter_.c_str(), 1);
    opt_.cache_dir = dir_ / "cache";
    opt_.work_root = dir_ / "work";
    opt_.build_workers = 2;
    opt_.host_test_slots = 2;
  }

  std::map<std::pair<std::string, int>, GradedSolution> run(const std::vector<Problem>& problems,
                                                            std::vector<Solution> sols) {
    std::vector<EvalJob> jobs;
    for (auto& s : sols)
      for (const auto& p : problems)
        if (p.task_id == s.task_id) jobs.push_back({&p, s});
    Evaluator ev(opt_, machine_);
    std::map<std::pair<std::string, int>, GradedSolution> out;
    std::mutex mu;
    ev.run(std::move(jobs), [&](const GradedSolution& g) {
      std::lock_guard<std::mutex> lock(mu);
      EXPECT_TRUE(out.emplace(std::make_pair(g.task_id, g.sample), g).second) << "reported twice";
      order_.push_back(g.task_id);
    });
    phases_ = ev.phase_times();
    return out;
  }

  int builds() const {
    std::ifstream in(counter_);
    int n = 0;
    std::string line;
    while (std::getline(in, line)) ++n;
    return n;
  }

  testing::TempDir dir_;
  std::filesystem::path counter_;
  EvalOptions opt_;
  MachineInfo machine_ = host_machine();
  std::vector<std::string> order_;
  Evaluator::PhaseTimes phases_;

  // Two solutions, m/a and m/b, both running `script`; both must pass through a quiet retry. The
  // 6 s limit leaves a machine busy with other suites time to start both first attempts while
  // the other still runs.
  std::map<std::pair<std::string, int>, GradedSolution> run_pair(const std::string& script) {
    std::vector<Problem> ps = {shell_problem("m/a", 6), shell_problem("m/b", 6)};
    auto r = run(ps, {sol("m/a", script), sol("m/b", script)});
    for (const auto& id : {"m/a", "m/b"}) {
      EXPECT_EQ(r[K(id, 0)].verdict, Verdict::pass) << id << ": " << r[K(id, 0)].detail;
      EXPECT_TRUE(r[K(id, 0)].test.quiet_retry) << id;
    }
    return r;
  }
};

TEST_F(EvaluatorTest, EachOutcomeGetsItsVerdict) {
  std::vector<Problem> ps = {shell_problem("p/pass"),   shell_problem("p/fail"),
                             shell_problem("p/build"),  shell_problem("p/crash"),
                             shell_problem("p/escape"), shell_problem("p/timeout", 1)};
  opt_.quiet_retry = false;
  auto r = run(ps, {sol("p/pass", "echo ok; exit 0"),
                    sol("p/fail", "echo wrong; exit 1"),
                    sol("p/build", "SYNTAX_ERROR"),
                    sol("p/crash", "kill -SEGV $$"),
                    {"p/escape", 0, {{"../../outside.sh", "x"}}, ""},
                    sol("p/timeout", "while :; do :; done")});
  ASSERT_EQ(r.size(), 6u);
  EXPECT_EQ(r[K("p/pass", 0)].verdict, Verdict::pass) << r[K("p/pass", 0)].detail;
  EXPECT_EQ(r[K("p/fail", 0)].verdict, Verdict::test_fail);
  EXPECT_NE(r[K("p/fail", 0)].test.log.find("wrong"), std::string::npos);
  EXPECT_EQ(r[K("p/build", 0)].verdict, Verdict::build_error);
  EXPECT_NE(r[K("p/build", 0)].detail.find("error: bad"), std::string::npos);
  EXPECT_EQ(r[K("p/crash", 0)].verdict, Verdict::crash);
  EXPECT_NE(r[K("p/crash", 0)].detail.find("SIGSEGV"), std::string::npos);
  EXPECT_EQ(r[K("p/escape", 0)].verdict, Verdict::invalid_solution);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "outside.sh"));
  EXPECT_EQ(r[K("p/timeout", 0)].verdict, Verdict::test_timeout);
  EXPECT_LT(r[K("p/timeout", 0)].test.wall_s, 3.0);
  // Workspaces are cleaned up.
  EXPECT_FALSE(std::filesystem::exists(dir_ / "work") && !std::filesystem::is_empty(dir_ / "work"));
}

TEST_F(EvaluatorTest, SourceReferencesAreCheckedBeforeBuilding) {
  Problem p = shell_problem("p/refs");
  p.source_references = SourceReferences{{"cudaMallocAsync"}, {}};
  // References are searched in the solution's C++/CUDA and Python files.
  Solution commented = sol("p/refs", "exit 0", 0);
  commented.files.push_back({"kernel.cu", "// cudaMallocAsync in a comment only\n"});
  Solution used = sol("p/refs", "exit 0", 1);
  used.files.push_back({"kernel.cu", "void f(void** p) { cudaMallocAsync(p, 4, 0); }\n"});
  auto r = run({p}, {commented, used});
  EXPECT_EQ(r[K("p/refs", 0)].verdict, Verdict::source_reference_missing);
  EXPECT_FALSE(r[K("p/refs", 0)].build.ran);
  EXPECT_EQ(r[K("p/refs", 1)].verdict, Verdict::pass);
}

TEST_F(EvaluatorTest, SecondRunTakesBuildsFromTheCache) {
  std::vector<Problem> ps = {shell_problem("c/a"), shell_problem("c/b")};
  auto first = run(ps, {sol("c/a", "exit 0"), sol("c/b", "SYNTAX_ERROR")});
  EXPECT_EQ(builds(), 1);  // the failing build never reaches the counter
  auto second = run(ps, {sol("c/a", "exit 0"), sol("c/b", "SYNTAX_ERROR")});
  EXPECT_EQ(builds(), 1) << "a rerun must not compile again";
  EXPECT_TRUE(second[K("c/a", 0)].build.cached);
  EXPECT_EQ(second[K("c/a", 0)].verdict, Verdict::pass);
  EXPECT_TRUE(second[K("c/b", 0)].build.cached);
  EXPECT_EQ(second[K("c/b", 0)].verdict, Verdict::build_error);
  // A changed solution is a new build.
  run(ps, {sol("c/a", "exit 0 # changed")});
  EXPECT_EQ(builds(), 2);
  opt_.use_cache = false;
  run(ps, {sol("c/a", "exit 0")});
  EXPECT_EQ(builds(), 3);
}

TEST_F(EvaluatorTest, TimeoutUnderLoadIsRetriedOnAQuietMachine) {
  // On its first attempt each test holds a lock on a file of its own, waits until it sees its
  // peer's file locked (the peer runs at the same time: the machine is loaded) and then stalls
  // past its timeout, as a slow build or a shared GPU would make it. On the retry it passes at
  // once. A lock dies with its holder, zombie or not, so liveness needs no PID checks.
  auto shared = dir_ / "running";
  std::filesystem::create_directories(shared);
  std::string d = shared.string();
  std::string script =
      "key=$(basename \"$PWD\" | sed 's/-a[0-9]*$//'); "
      "if [ -e " +
      d + "/done-$key ]; then exit 0; fi; touch " + d +
      "/done-$key; "
      "exec 9>" +
      d +
      "/lock-$key; flock -x 9; "
      "while :; do for f in " +
      d +
      "/lock-*; do "
      "[ \"$f\" = " +
      d +
      "/lock-$key ] && continue; "
      "flock -n -x \"$f\" true || sleep 30; done; sleep 0.05; done";
  std::vector<Problem> ps = {shell_problem("q/a", 4), shell_problem("q/b", 4)};
  auto r = run(ps, {sol("q/a", script), sol("q/b", script)});
  for (const auto& id : {"q/a", "q/b"}) {
    const auto& g = r[K(id, 0)];
    EXPECT_EQ(g.verdict, Verdict::pass) << id << ": " << g.detail;
    EXPECT_TRUE(g.test.quiet_retry) << id;
    EXPECT_EQ(g.test.attempts, 2) << id;
  }
}

// The first attempt of each test stalls past its limit while its peer runs (as in
// TimeoutUnderLoadIsRetriedOnAQuietMachine); on a retry (its done- file exists) it runs `retry`.
// @ stands for the shared directory.
std::string stall_then(const std::filesystem::path& shared, const std::string& retry) {
  std::string script =
      "key=$(basename \"$PWD\" | sed 's/-a[0-9]*$//')\n"
      "if [ -e @/done-$key ]; then\n" +
      retry + R"(
fi
touch @/done-$key
exec 9>@/lock-$key; flock -x 9
while :; do
  for f in @/lock-*; do
    [ "$f" = @/lock-$key ] && continue
    flock -n -x "$f" true || sleep 30
  done
  sleep 0.05
done
)";
  for (std::size_t at; (at = script.find('@')) != std::string::npos;)
    script.replace(at, 1, shared.string());
  return script;
}

// On the quiet retry each writes whether it saw the other's retry running at the same time (a
// retry's q- file lives while it runs, and half a second more after it saw its peer, so the peer
// sees it too).
std::string stall_then_meet(const std::filesystem::path& shared) {
  return stall_then(shared, R"(  touch @/q-$key
  for i in $(seq 60); do
    if [ $(ls @/q-* | wc -l) -ge 2 ]; then
      echo together > @/r-$key; sleep 0.5; rm @/q-$key; exit 0
    fi
    sleep 0.05
  done
  echo apart > @/r-$key; rm @/q-$key; exit 0)");
}

// On a retry each stalls past its limit while it sees its peer's retry running (holding its
// q- lock), as a neighbour hogging the cores would make it; alone it passes in two seconds.
std::string stall_then_stall_beside(const std::filesystem::path& shared) {
  return stall_then(shared, R"(  exec 8>@/q-$key; flock -x 8
  for i in $(seq 40); do
    for f in @/q-*; do
      [ "$f" = @/q-$key ] && continue
      flock -n -x "$f" true || sleep 30
    done
    sleep 0.05
  done
  exit 0)");
}

// What each retry wrote (r-KEY files), in name order.
std::vector<std::string> meetings(const std::filesystem::path& shared) {
  std::vector<std::pair<std::string, std::string>> found;
  for (const auto& e : std::filesystem::directory_iterator(shared)) {
    if (e.path().filename().string().rfind("r-", 0) != 0) continue;
    std::ifstream in(e.path());
    std::string w;
    in >> w;
    found.emplace_back(e.path().filename().string(), w);
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> words;
  for (auto& f : found) words.push_back(f.second);
  return words;
}

TEST_F(EvaluatorTest, QuietRetriesRunSideBySideWhereEachHasEightCpus) {
  machine_.cpu_count = 16;  // room for two retries, each with eight CPUs
  auto shared = dir_ / "running";
  std::filesystem::create_directories(shared);
  run_pair(stall_then_meet(shared));
  EXPECT_EQ(meetings(shared), (std::vector<std::string>{"together", "together"}));
  EXPECT_EQ(phases_.quiet_retries, 2);
  EXPECT_EQ(phases_.quiet_width, 2);
  EXPECT_EQ(phases_.quiet_alone, 0);
  EXPECT_GT(phases_.quiet_s, 0.5);
  EXPECT_GT(phases_.main_s, 5.0) << "the first attempts ran to their 6 s limit";
}

TEST_F(EvaluatorTest, QuietRetriesRunOneAtATimeOnASmallMachine) {
  auto shared = dir_ / "running";  // machine_: two CPUs
  std::filesystem::create_directories(shared);
  run_pair(stall_then_meet(shared));
  EXPECT_EQ(meetings(shared), (std::vector<std::string>{"apart", "apart"}));
  EXPECT_EQ(phases_.quiet_width, 1);
}

TEST_F(EvaluatorTest, ARetryThatTimesOutBesideAnotherGoesOnceMoreAlone) {
  // A neighbour's doing is never a verdict: side by side both retries stall to their limit, and
  // each passes when it runs alone.
  machine_.cpu_count = 16;
  auto shared = dir_ / "running";
  std::filesystem::create_directories(shared);
  auto r = run_pair(stall_then_stall_beside(shared));
  for (const auto& id : {"m/a", "m/b"}) EXPECT_EQ(r[K(id, 0)].test.attempts, 3) << id;
  EXPECT_EQ(phases_.quiet_width, 2);
  EXPECT_EQ(phases_.quiet_alone, 2);
}

TEST_F(EvaluatorTest, RealTimeoutStaysATimeoutAfterTheQuietRetry) {
  // t/load keeps the machine busy while t/a times out, so t/a's timeout is not trusted at first.
  std::vector<Problem> ps = {shell_problem("t/a", 1), shell_problem("t/load", 10)};
  auto r = run(ps, {sol("t/a", "sleep 10"), sol("t/load", "sleep 3")});
  EXPECT_EQ(r[K("t/a", 0)].verdict, Verdict::test_timeout);
  EXPECT_TRUE(r[K("t/a", 0)].test.quiet_retry);
  EXPECT_EQ(r[K("t/a", 0)].test.attempts, 2);
  EXPECT_EQ(r[K("t/load", 0)].verdict, Verdict::pass);
}

// Issue 35: where the sandbox's cgroup keeps pressure (PSI), a test that times out beside others
// is judged on the evidence: `sleep` was kept waiting by nothing, so it had its whole limit clear
// of the load and its timeout is its own at once, with no quiet retry. Skipped where the
// kernel keeps no pressure for step groups (the old rule then stands, as tested above).
TEST_F(EvaluatorTest, AnEndlessTestUnderLoadIsChargedOnTheEvidenceWithoutARetry) {
  opt_.sandbox = true;
  std::string why;
  SandboxPolicy probe;
  probe.workspace = dir_.path();
  if (!sandbox_available(probe, &why)) GTEST_SKIP() << "bubblewrap unusable here: " << why;
  std::optional<StepCgroup> group = StepCgroup::create({16, 64ull << 20});
  if (!group || !group->stall_seconds()) GTEST_SKIP() << "no pressure (PSI) for step groups";
  group.reset();
  Problem endless = shell_problem("e/a", 1), load = shell_problem("e/load", 10);
  endless.build_command = load.build_command = "cp solution.sh run.sh";
  opt_.baseline_test_s["e/a"] = 0.05;
  auto r = run({endless, load}, {sol("e/a", "sleep 10"), sol("e/load", "sleep 3")});
  const auto& g = r[K("e/a", 0)];
  EXPECT_EQ(g.verdict, Verdict::test_timeout) << g.detail;
  EXPECT_EQ(g.test.attempts, 1);
  EXPECT_FALSE(g.test.quiet_retry);
  EXPECT_GE(g.test.lost_s, 0);
  EXPECT_NE(g.detail.find("clear of the machine's load"), std::string::npos) << g.detail;
  EXPECT_EQ(r[K("e/load", 0)].verdict, Verdict::pass) << r[K("e/load", 0)].detail;
  EXPECT_EQ(phases_.quiet_retries, 0);

  // --strict-timeouts: the same timeout goes to the quiet retry, as before the evidence.
  opt_.timeout_evidence = false;
  auto strict = run({endless, load}, {sol("e/a", "sleep 10"), sol("e/load", "sleep 3")});
  EXPECT_EQ(strict[K("e/a", 0)].verdict, Verdict::test_timeout);
  EXPECT_TRUE(strict[K("e/a", 0)].test.quiet_retry);
}

// Issue 35: a test running far past its problem's baseline gives its GPU slot back, so the one
// slot of this GPU does not keep the quick tests waiting for it (they build later, so the slow
// one holds the slot first).
TEST_F(EvaluatorTest, ATestFarPastItsBaselineGivesItsGpuSlotBack) {
  machine_.gpus = {{0, "NVIDIA H100", "9.0", "GPU-a"}};
  opt_.gpu_probe = false;
  opt_.tests_per_gpu = 1;
  opt_.suspect_min_s = 0.3;
  opt_.baseline_test_s = {{"s/slow", 0.01}, {"s/quick", 0.01}};
  Problem slow = shell_problem("s/slow", 20), quick = shell_problem("s/quick", 20);
  slow.build_command = "cp solution.sh run.sh";
  quick.build_command = "sleep 1; cp solution.sh run.sh";
  auto r = run({slow, quick}, {sol("s/slow", "sleep 4"), sol("s/quick", "exit 0", 0),
                               sol("s/quick", "exit 0", 1)});
  for (const auto& k : {K("s/slow", 0), K("s/quick", 0), K("s/quick", 1)})
    EXPECT_EQ(r[k].verdict, Verdict::pass) << r[k].detail;
  ASSERT_EQ(order_.size(), 3u);
  EXPECT_EQ(order_.back(), "s/slow") << "the quick tests ran beside it";
  EXPECT_EQ(phases_.suspects, 1);

  // With no room for suspects, the one slot is held to the end.
  opt_.suspects_per_gpu = 0;
  opt_.use_cache = false;
  order_.clear();
  run({slow, quick}, {sol("s/slow", "sleep 2"), sol("s/quick", "exit 0", 0)});
  ASSERT_EQ(order_.size(), 2u);
  EXPECT_EQ(order_.back(), "s/quick");
}

// A build whose command waits (sleep: no CPU time) past its 1 s limit, as a compile kept from
// the cores by a loaded machine would.
Problem waiting_build_problem(const std::string& id) {
  Problem p = shell_problem(id, 1);
  p.build_command = "sleep 1.6; cp solution.sh run.sh";
  return p;
}

TEST_F(EvaluatorTest, ABuildKeptFromTheCoresOfALoadedMachineIsJudgedOnItsCpuTime) {
  // Two such builds side by side (two build workers): each ran while the other did, so past the
  // wall limit their CPU time decides, and it is far under the limit.
  std::vector<Problem> ps = {waiting_build_problem("w/a"), waiting_build_problem("w/b")};
  auto r = run(ps, {sol("w/a", "exit 0"), sol("w/b", "exit 0")});
  for (const auto& id : {"w/a", "w/b"}) {
    const auto& g = r[K(id, 0)];
    EXPECT_EQ(g.verdict, Verdict::pass) << id << ": " << g.detail;
    EXPECT_TRUE(g.build.cpu_limited) << id;
    EXPECT_LT(g.build.cpu_s, 1.0) << id;
    EXPECT_GT(g.build.wall_s, 1.0) << id;
    EXPECT_FALSE(g.build.quiet_retry) << id << ": no retry needed";
  }
}

TEST_F(EvaluatorTest, ABuildAloneOnTheMachineGetsNoCpuGrace) {
  // Alone, wall time past the limit with CPU time under it is the build's own waiting.
  std::vector<Problem> ps = {waiting_build_problem("w/alone")};
  auto r = run(ps, {sol("w/alone", "exit 0")});
  const auto& g = r[K("w/alone", 0)];
  EXPECT_EQ(g.verdict, Verdict::build_timeout) << g.detail;
  EXPECT_FALSE(g.build.cpu_limited);
}

TEST_F(EvaluatorTest, ABuildThatWorksPastItsLimitUnderLoadGoesToTheQuietRetry) {
  // Busy for 30 s of CPU: under load the CPU count reaches the limit and stops it; alone on
  // the quiet retry it times out for good. w/load keeps the machine busy meanwhile.
  Problem busy = shell_problem("w/busy", 1);
  busy.build_command = "end=$(($(date +%s) + 30)); while [ $(date +%s) -lt $end ]; do :; done";
  std::vector<Problem> ps = {busy, waiting_build_problem("w/load")};
  auto r = run(ps, {sol("w/busy", "exit 0"), sol("w/load", "exit 0")});
  const auto& g = r[K("w/busy", 0)];
  EXPECT_EQ(g.verdict, Verdict::build_timeout) << g.detail;
  EXPECT_TRUE(g.build.quiet_retry);
  EXPECT_LT(g.build.wall_s, 10);
}

TEST_F(EvaluatorTest, MachineFaultsAreRetriedThenReportedAsJudgeErrors) {
  // The program says the GPU is gone, and the judge's probe on that GPU agrees.
  machine_.gpus = {{0, "NVIDIA H100", "9.0", "GPU-a"}};
  opt_.tests_per_gpu = 1;
  opt_.gpu_probe_command = "exit 1";
  opt_.judge_error_retries = 0;  // each probe that fails tries three times, 2 s apart
  Problem p = shell_problem("j/a");
  p.host_only = false;
  auto r = run({p}, {sol("j/a", "echo 'CUDA error: no CUDA-capable device is detected'; exit 1")});
  const auto& g = r[K("j/a", 0)];
  EXPECT_EQ(g.verdict, Verdict::judge_error);
  EXPECT_NE(g.detail.find("probe"), std::string::npos) << g.detail;
}

TEST_F(EvaluatorTest, AProgramThatOnlySaysTheGpuFailedIsCharged) {
  // Issue 31: printing a machine fault's words is no machine fault. Where the probe runs on the
  // GPU, or where the problem runs without one, the failure is the solution's and counts.
  const std::string liar = "echo 'CUDA error: no CUDA-capable device is detected'; exit 1";
  auto host = run({shell_problem("j/a")}, {sol("j/a", liar)});
  EXPECT_EQ(host[K("j/a", 0)].verdict, Verdict::test_fail) << host[K("j/a", 0)].detail;
  EXPECT_EQ(host[K("j/a", 0)].test.attempts, 1);

  machine_.gpus = {{0, "NVIDIA H100", "9.0", "GPU-a"}};
  opt_.tests_per_gpu = 1;
  opt_.gpu_probe_command = "true";
  Problem p = shell_problem("j/b");
  p.host_only = false;
  auto gpu = run({p}, {sol("j/b", liar), sol("j/b", "echo cudaErrorNoDevice; kill -SEGV $$", 1)});
  EXPECT_EQ(gpu[K("j/b", 0)].verdict, Verdict::test_fail) << gpu[K("j/b", 0)].detail;
  EXPECT_NE(gpu[K("j/b", 0)].detail.find("probe ran on that GPU"), std::string::npos);
  EXPECT_TRUE(counts_for_model(gpu[K("j/b", 1)].verdict)) << gpu[K("j/b", 1)].verdict;
}

// Issue 31: what a solution brings that breaks its own workspace (a file where the problem has
// a folder, a folder through a problem's file, a name too long for the file system) was a
// judge_error, retried and left out of pass@k: four broken samples of five gave pass@1 = 1.0.
// They are the solution's own: invalid_solution, counted, never built.
TEST_F(EvaluatorTest, SolutionsThatBreakTheirOwnWorkspaceAreCharged) {
  Problem p = shell_problem("w/a");
  p.context_files = {{"include/api.h", "int api();"}};
  std::vector<Solution> ss = {sol("w/a", "exit 0", 0)};
  ss.push_back(sol("w/a", "exit 0", 1));
  ss.back().files.push_back({"include/api.h/x", "x"});
  ss.push_back(sol("w/a", "exit 0", 2));
  ss.back().files.push_back({"test", "x"});
  ss.push_back(sol("w/a", "exit 0", 3));
  ss.back().files.push_back({std::string(300, 'n') + ".h", "x"});
  ss.push_back(sol("w/a", "exit 0", 4));
  ss.back().refused = "the solution's record is 200000000 bytes";
  auto r = run({p}, ss);
  EXPECT_EQ(r[K("w/a", 0)].verdict, Verdict::pass);
  int counted = 0, passed = 0;
  for (int i = 1; i < 5; ++i) {
    const auto& g = r[K("w/a", i)];
    EXPECT_EQ(g.verdict, Verdict::invalid_solution) << i << ": " << g.detail;
    EXPECT_FALSE(g.build.ran) << i;
  }
  for (const auto& [key, g] : r) {
    counted += counts_for_model(g.verdict);
    passed += g.verdict == Verdict::pass;
  }
  EXPECT_EQ(counted, 5);
  EXPECT_DOUBLE_EQ(pass_at_k(counted, passed, 1), 0.2);
  EXPECT_NE(r[K("w/a", 4)].detail.find("200000000 bytes"), std::string::npos);
}

// Issue 32: a solution that prints the hidden test (at run time, or through the compiler's
// quotes) gets none of its lines back. Its program finds no test source to read after the
// build, and any line it prints that reproduces one (however indented) is replaced in the log.
TEST_F(EvaluatorTest, NoLogCarriesALineOfTheHiddenTests) {
  Problem p = shell_problem("h/leak");
  const std::string secret1 = "int expected_secret_value(int i) { return 7 * i + 3; }";
  const std::string secret2 = "assert(out[i] == expected_secret_value(i));";
  p.test_files = {{"test/test_main.cu", "#include <cassert>\n" + secret1 + "\nint main() {\n  " +
                                            secret2 + "\n  return 0;\n}\n"},
                  {"test/data.txt", "kept-42\n"}};
  // The "compiler" quotes the test's lines when the solution asks it to fail.
  p.build_command =
      "if grep -q QUOTE solution.sh; then cat test/test_main.cu >&2; exit 1; fi; "
      "cp solution.sh run.sh";
  const std::string print_test =
      "cat test/test_main.cu; ls test; cat test/data.txt; echo '  int   expected_secret_value(int "
      "i)   {  return 7 * i + 3; }'; echo 'tail: " +
      secret2 + "'; echo own line stays; exit 1";
  auto r = run({p}, {sol("h/leak", print_test, 0), sol("h/leak", "# QUOTE\nexit 0", 1)});
  const auto& ran = r[K("h/leak", 0)];
  EXPECT_EQ(ran.verdict, Verdict::test_fail);
  EXPECT_EQ(ran.test.log.find("expected_secret_value"), std::string::npos) << ran.test.log;
  EXPECT_NE(ran.test.log.find(kHiddenLineMarker), std::string::npos) << ran.test.log;
  // The source is gone; a data file the test would read at run time is not.
  EXPECT_NE(ran.test.log.find("test/test_main.cu: No such file"), std::string::npos)
      << ran.test.log;
  EXPECT_NE(ran.test.log.find("\ndata.txt\n"), std::string::npos) << ran.test.log;
  EXPECT_NE(ran.test.log.find("kept-42"), std::string::npos) << ran.test.log;
  EXPECT_NE(ran.test.log.find("own line stays"), std::string::npos) << ran.test.log;
  const auto& built = r[K("h/leak", 1)];
  EXPECT_EQ(built.verdict, Verdict::build_error);
  EXPECT_EQ(built.build.log.find("expected_secret_value"), std::string::npos) << built.build.log;
  EXPECT_EQ(built.detail.find("expected_secret_value"), std::string::npos) << built.detail;
  // The build cache keeps only the redacted log: a second run, from the cache, shows no more.
  auto again = run({p}, {sol("h/leak", "# QUOTE\nexit 0", 1)});
  EXPECT_TRUE(again[K("h/leak", 1)].build.cached);
  EXPECT_EQ(again[K("h/leak", 1)].build.log.find("expected_secret_value"), std::string::npos);
}

TEST_F(EvaluatorTest, SandboxedStepsSeeOnlyTheirWorkspace) {
  opt_.sandbox = true;
  std::string why;
  SandboxPolicy probe;
  probe.workspace = dir_.path();
  if (!sandbox_available(probe, &why)) GTEST_SKIP() << "bubblewrap unusable here: " << why;
  // A secret beside the workspaces: readable by the judge, not by a solution.
  testing::write_text(dir_ / "secret.txt", "hidden answer");
  Problem p = shell_problem("x/read");
  p.build_command = "cp solution.sh run.sh";
  std::string steal = "cat " + (dir_ / "secret.txt").string() + " && exit 0; exit 1";
  auto r = run({p}, {sol("x/read", steal, 0), sol("x/read", "echo inside > mine.txt; exit 0", 1)});
  EXPECT_EQ(r[K("x/read", 0)].verdict, Verdict::test_fail) << r[K("x/read", 0)].test.log;
  EXPECT_EQ(r[K("x/read", 0)].test.log.find("hidden answer"), std::string::npos);
  EXPECT_EQ(r[K("x/read", 1)].verdict, Verdict::pass) << r[K("x/read", 1)].test.log;
  opt_.sandbox = false;
  auto open = run({p}, {sol("x/read", steal, 0)});
  EXPECT_EQ(open[K("x/read", 0)].verdict, Verdict::pass) << "without the sandbox it can";
}

// ComputeEval's cuda_python commands (`PYTHONPATH=. python test_x.py`) run with the Python
// environment of scripts/install-python-env: a real venv here, made from this machine's
// interpreter (which lives outside /usr, so the sandbox must bind it too), holding a module the
// system's Python lacks. cuda_cpp steps keep the system's python3; a solution that ends the
// test's interpreter at import is refused before it runs.
TEST_F(EvaluatorTest, CudaPythonStepsRunInThePythonEnvironment) {
  const std::filesystem::path venv = dir_ / "pyenv";
  ASSERT_EQ(std::system(("python3 -m venv --without-pip " + venv.string()).c_str()), 0);
  std::filesystem::path site;
  for (const auto& e : std::filesystem::recursive_directory_iterator(venv / "lib"))
    if (e.path().filename() == "site-packages") site = e.path();
  ASSERT_FALSE(site.empty());
  testing::write_text(site / "kjudge_marker.py", "VALUE = 42\n");
  machine_.python_env = read_python_env(venv);
  ASSERT_TRUE(machine_.python_env);

  Problem p;
  p.task_id = "py/add";
  p.type = "cuda_python";
  p.host_only = true;
  p.build_command = "echo \"No build step needed for Python\"";
  p.test_command = "PYTHONPATH=. python test_add.py";
  p.test_files = {{"test_add.py",
                   "import sys\nimport kjudge_marker\nfrom solution import add\n"
                   "assert add(2, kjudge_marker.VALUE) == 44, add(2, 42)\n"
                   "assert sys.executable.startswith('" +
                       venv.string() + "'), sys.executable\nprint('ALL TESTS PASSED')\n"}};
  p.timeout_seconds = 30;
  // The module the test imports from the solution: what the baseline provides.
  p.baseline_solution = Solution{};
  p.baseline_solution->files = {{"solution.py", "def add(a, b):\n    return a + b\n"}};
  Problem cpp = shell_problem("py/system");
  cpp.build_command = "true";
  cpp.test_command = "python3 -c 'import kjudge_marker'";
  auto py = [](const std::string& code, int sample) {
    Solution s;
    s.task_id = "py/add";
    s.sample = sample;
    s.files = {{"solution.py", code}};
    return s;
  };
  const std::vector<Solution> sols = {py("def add(a, b):\n    return a + b\n", 0),
                                      py("def add(a, b):\n    return a - b\n", 1),
                                      py("import os\nos._exit(0)\n", 2), sol("py/system", "", 0)};
  for (bool sandbox : {false, true}) {
    opt_.sandbox = sandbox;
    if (sandbox) {
      std::string why;
      SandboxPolicy probe;
      probe.workspace = dir_.path();
      if (!sandbox_available(probe, &why)) GTEST_SKIP() << "bubblewrap unusable here: " << why;
    }
    auto r = run({p, cpp}, sols);
    EXPECT_EQ(r[K("py/add", 0)].verdict, Verdict::pass)
        << sandbox << r[K("py/add", 0)].detail << r[K("py/add", 0)].test.log;
    EXPECT_EQ(r[K("py/add", 1)].verdict, Verdict::test_fail) << sandbox;
    EXPECT_NE(r[K("py/add", 1)].test.log.find("AssertionError"), std::string::npos)
        << r[K("py/add", 1)].test.log;
    EXPECT_EQ(r[K("py/add", 2)].verdict, Verdict::invalid_solution) << sandbox;
    EXPECT_NE(r[K("py/add", 2)].detail.find("os._exit"), std::string::npos)
        << r[K("py/add", 2)].detail;
    EXPECT_EQ(r[K("py/system", 0)].verdict, Verdict::test_fail)
        << "a cuda_cpp step saw the environment: " << r[K("py/system", 0)].test.log;
  }
}

TEST_F(EvaluatorTest, AGpuThatFailsItsProbeLeavesThePool) {
  // Two (pretend) GPUs; the probe says GPU 0 is broken. Crashes make the judge probe.
  machine_.gpus = {{0, "NVIDIA H100", "9.0", "GPU-a"}, {1, "NVIDIA H100", "9.0", "GPU-b"}};
  opt_.tests_per_gpu = 1;
  opt_.gpu_probe_command = "test \"$CUDA_VISIBLE_DEVICES\" != 0";
  std::vector<Problem> ps;
  std::vector<Solution> ss;
  for (int i = 0; i < 8; ++i) {
    std::string id = "g/" + std::to_string(i);
    ps.push_back(shell_problem(id));
    ss.push_back(sol(id, i % 2 ? "exit 0" : "kill -SEGV $$"));
  }
  Evaluator ev(opt_, machine_);
  std::vector<EvalJob> jobs;
  for (std::size_t i = 0; i < ps.size(); ++i) jobs.push_back({&ps[i], ss[i]});
  std::map<std::string, GradedSolution> out;
  std::mutex mu;
  ev.run(jobs, [&](const GradedSolution& g) {
    std::lock_guard<std::mutex> lock(mu);
    out[g.task_id] = g;
  });
  ASSERT_EQ(out.size(), 8u) << "nothing lost";
  EXPECT_EQ(ev.broken_gpus().count(0), 1u);
  EXPECT_EQ(ev.broken_gpus().count(1), 0u);
  for (int i = 0; i < 8; ++i) {
    const auto& g = out["g/" + std::to_string(i)];
    EXPECT_EQ(g.verdict, i % 2 ? Verdict::pass : Verdict::crash) << g.task_id << " " << g.detail;
  }
}

TEST_F(EvaluatorTest, WhenEveryGpuIsOutTheRestAreJudgeErrorsNotLost) {
  machine_.gpus = {{0, "NVIDIA H100", "9.0", "GPU-a"}};
  opt_.tests_per_gpu = 1;
  opt_.build_workers = 1;
  opt_.gpu_probe_command = "exit 1";
  std::vector<Problem> ps = {shell_problem("h/0"), shell_problem("h/1"), shell_problem("h/2")};
  auto r = run(ps, {sol("h/0", "kill -SEGV $$"), sol("h/1", "exit 0"), sol("h/2", "exit 0")});
  ASSERT_EQ(r.size(), 3u);
  int judge_errors = 0;
  for (const auto& [k, g] : r) judge_errors += g.verdict == Verdict::judge_error;
  EXPECT_GE(judge_errors, 1) << "tests queued behind the broken GPU cannot run";
}

TEST_F(EvaluatorTest, SkipRulesSkipInsteadOfFailing) {
  Problem gpu = shell_problem("s/gpu");
  gpu.host_only = false;  // needs a GPU, and this machine has none
  Problem ctk = shell_problem("s/ctk");
  ctk.min_cuda_toolkit = "99.0";
  auto r = run({gpu, ctk}, {sol("s/gpu", "exit 0"), sol("s/ctk", "exit 0")});
  EXPECT_EQ(r[K("s/gpu", 0)].verdict, Verdict::skipped);
  EXPECT_EQ(r[K("s/gpu", 0)].skip_code, "no_gpu");
  EXPECT_EQ(r[K("s/ctk", 0)].verdict, Verdict::skipped);
  EXPECT_EQ(r[K("s/ctk", 0)].skip_code, "cuda_toolkit");
  EXPECT_EQ(builds(), 0);
}

// EvalJob::build_only (kjudge validate|evaluate --build-only): a problem that needs a GPU is built
// on a machine without one and not tested, from the cache too; a failed build is still a
// build_error; the toolkit rules still skip.
TEST_F(EvaluatorTest, BuildOnlyJobsNeedNoGpuAndNeverTest) {
  Problem gpu = shell_problem("b/gpu");
  gpu.host_only = false;
  Problem bad = shell_problem("b/bad");
  bad.host_only = false;
  Problem ctk = shell_problem("b/ctk");
  ctk.min_cuda_toolkit = "99.0";
  const std::vector<Problem> ps = {gpu, bad, ctk};
  for (int round = 0; round < 2; ++round) {
    std::vector<EvalJob> jobs = {{&ps[0], sol("b/gpu", "echo tested > tested.txt")},
                                 {&ps[1], sol("b/bad", "SYNTAX_ERROR")},
                                 {&ps[2], sol("b/ctk", "exit 0")}};
    for (auto& j : jobs) j.build_only = true;
    std::map<std::string, GradedSolution> out;
    Evaluator ev(opt_, machine_);
    ev.run(std::move(jobs), [&](const GradedSolution& g) { out[g.task_id] = g; });
    EXPECT_EQ(out["b/gpu"].verdict, Verdict::pass) << out["b/gpu"].detail;
    EXPECT_EQ(out["b/gpu"].detail, "built only (not tested in this pass)");
    EXPECT_FALSE(out["b/gpu"].test.ran) << "round " << round;
    EXPECT_EQ(out["b/gpu"].build.cached, round == 1);
    EXPECT_EQ(out["b/bad"].verdict, Verdict::build_error);
    EXPECT_EQ(out["b/ctk"].skip_code, "cuda_toolkit");
  }
  EXPECT_EQ(builds(), 1) << "the second round's build came from the cache";
}

TEST_F(EvaluatorTest, JobsStartInThePlannedOrder) {
  // Earlier runs on this machine measured these durations (see schedule.h for the rule).
  testing::write_text(opt_.cache_dir / "timings.json",
                      R"({"o/a": {"build_s": 1, "test_s": 5}, "o/d": {"build_s": 1, "test_s": 0.1},
                          "o/e": {"build_s": 2, "test_s": 0.1}, "o/b": {"build_s": 50, "test_s": 0.1},
                          "o/c": {"build_s": 40, "test_s": 0.1}})");
  opt_.build_workers = 1;
  opt_.host_test_slots = 1;
  std::vector<Problem> ps;
  std::vector<Solution> ss;
  for (const char* id : {"o/c", "o/b", "o/e", "o/d", "o/a"}) {
    ps.push_back(shell_problem(id));
    ss.push_back(sol(id, "exit 0"));
  }
  run(ps, ss);
  EXPECT_EQ(order_, (std::vector<std::string>{"o/a", "o/e", "o/d", "o/b", "o/c"}));
}

}  // namespace
}  // namespace kjudge

namespace kjudge {
namespace {

// Jobs fed while the run goes (kjudge run grades answers as they arrive): each is graded soon
// after it arrives, not after the last one, and run() returns once the feed closes.
// Issue 34, "Luck does not pass". The toolkit of these tests has tests/fixtures/
// fake-compute-sanitizer beside its nvcc, where the judge looks for the real one: it reports an
// out-of-bounds read (memcheck) or a race (racecheck) when the program prints FAKE-OOB or
// FAKE-RACE, and tells the program it runs under it ($FAKE_SANITIZER_TOOL).
class LuckTest : public EvaluatorTest {
 protected:
  void SetUp() override {
    EvaluatorTest::SetUp();
    const std::filesystem::path bin = dir_ / "toolkit/bin";
    std::filesystem::create_directories(bin);
    testing::write_text(bin / "nvcc", "#!/bin/sh\n");
    std::filesystem::copy_file(
        std::filesystem::path(KJUDGE_SOURCE_DIR) / "tests/fixtures/fake-compute-sanitizer",
        bin / "compute-sanitizer");
    std::filesystem::permissions(bin / "compute-sanitizer", std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add);
    machine_.nvcc_path = (bin / "nvcc").string();
    setenv("FAKE_SANITIZER_LOG", (dir_ / "sanitizer.log").c_str(), 1);
    unsetenv("KJUDGE_COMPUTE_SANITIZER");
    opt_.quiet_retry = false;
  }
  void TearDown() override { unsetenv("FAKE_SANITIZER_LOG"); }
  // The sanitizer's runs, one line each: "TOOL PROGRAM ARGS".
  std::vector<std::string> sanitizer_runs() const {
    std::vector<std::string> lines;
    std::ifstream in(dir_ / "sanitizer.log");
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }
};

TEST_F(LuckTest, MemcheckFailsAPassingSolutionThatReadsOutOfBounds) {
  opt_.sanitize = {"memcheck"};
  std::vector<Problem> ps = {shell_problem("m/clean"), shell_problem("m/oob"),
                             shell_problem("m/fail")};
  auto r = run(ps, {sol("m/clean", "echo ok"), sol("m/oob", "echo FAKE-OOB; echo ok"),
                    sol("m/fail", "echo FAKE-OOB; exit 1")});
  const GradedSolution& clean = r[K("m/clean", 0)];
  EXPECT_EQ(clean.verdict, Verdict::pass) << clean.detail;
  ASSERT_EQ(clean.sanitizer.size(), 1u);
  EXPECT_EQ(clean.sanitizer[0].tool, "memcheck");
  EXPECT_EQ(clean.sanitizer[0].outcome, SanitizerOutcome::clean);

  const GradedSolution& oob = r[K("m/oob", 0)];
  EXPECT_EQ(oob.verdict, Verdict::sanitizer_error);
  EXPECT_TRUE(counts_for_model(oob.verdict));
  EXPECT_EQ(oob.detail, "memcheck: 1 error: Invalid __global__ read of size 4 bytes");
  ASSERT_EQ(oob.sanitizer.size(), 1u);
  EXPECT_EQ(oob.sanitizer[0].errors, 1);
  ASSERT_GE(oob.sanitizer[0].report.size(), 4u);
  EXPECT_EQ(oob.sanitizer[0].report[3], "Address 0x7f3a9e000080 is out of bounds");
  EXPECT_EQ(oob.sanitizer[0].step.exit_code, kSanitizerErrorExit);
  EXPECT_NE(oob.sanitizer[0].step.log.find("ERROR SUMMARY: 1 error"), std::string::npos);
  EXPECT_EQ(oob.test.exit_code, 0) << "the plain run passed";

  // A failing test is not checked: its verdict stands.
  EXPECT_EQ(r[K("m/fail", 0)].verdict, Verdict::test_fail);
  EXPECT_TRUE(r[K("m/fail", 0)].sanitizer.empty());
  // One sanitizer run per passing solution, of the test's own command.
  EXPECT_EQ(sanitizer_runs(),
            (std::vector<std::string>{"memcheck sh run.sh", "memcheck sh run.sh"}));
}

TEST_F(LuckTest, RacecheckFindsWhatMemcheckPassesAndEveryToolIsRecorded) {
  opt_.sanitize = {"memcheck", "racecheck"};
  auto r = run({shell_problem("r/race")}, {sol("r/race", "echo FAKE-RACE")});
  const GradedSolution& g = r[K("r/race", 0)];
  EXPECT_EQ(g.verdict, Verdict::sanitizer_error);
  ASSERT_EQ(g.sanitizer.size(), 2u);
  EXPECT_EQ(g.sanitizer[0].outcome, SanitizerOutcome::clean);
  EXPECT_EQ(g.sanitizer[1].tool, "racecheck");
  EXPECT_EQ(g.sanitizer[1].outcome, SanitizerOutcome::errors);
  EXPECT_NE(g.detail.find("racecheck: 1 error: Error: Race reported between Write access"),
            std::string::npos)
      << g.detail;
}

TEST_F(LuckTest, ASanitizerThatCannotJudgeIsTheJudgesFaultNeverTheSolutions) {
  opt_.sanitize = {"memcheck"};
  opt_.sanitize_timeout_factor = 1;
  const std::string counter = (dir_ / "tests.count").string();
  // Each test run counts itself: a judge_error retried would run its test again.
  auto counted = [&](const std::string& rest) {
    return "[ -n \"$FAKE_SANITIZER_TOOL\" ] || echo x >> " + counter + "; " + rest;
  };
  std::vector<Problem> ps = {shell_problem("x/slow", 1), shell_problem("x/breaks")};
  auto r = run(ps, {sol("x/slow", counted("[ -n \"$FAKE_SANITIZER_TOOL\" ] && sleep 20; exit 0")),
                    sol("x/breaks", counted("[ -n \"$FAKE_SANITIZER_TOOL\" ] && exit 3; exit 0"))});
  const GradedSolution& slow = r[K("x/slow", 0)];
  EXPECT_EQ(slow.verdict, Verdict::judge_error);
  EXPECT_FALSE(counts_for_model(slow.verdict));
  EXPECT_NE(slow.detail.find("did not finish within 1 s"), std::string::npos) << slow.detail;
  EXPECT_LT(slow.total_s, 10);
  const GradedSolution& breaks = r[K("x/breaks", 0)];
  EXPECT_EQ(breaks.verdict, Verdict::judge_error);
  EXPECT_NE(breaks.detail.find("no error the tool reported"), std::string::npos) << breaks.detail;
  EXPECT_EQ(breaks.sanitizer.at(0).outcome, SanitizerOutcome::inconclusive);

  // No sanitizer on the machine at all.
  opt_.sanitizer = std::filesystem::path();
  auto none = run({shell_problem("x/none")}, {sol("x/none", counted("exit 0"))});
  EXPECT_EQ(none[K("x/none", 0)].verdict, Verdict::judge_error);
  EXPECT_NE(none[K("x/none", 0)].detail.find("compute-sanitizer not found"), std::string::npos);
  // Not retried: each test ran once.
  std::ifstream in(counter);
  int runs = 0;
  for (std::string line; std::getline(in, line);) ++runs;
  EXPECT_EQ(runs, 3);
}

TEST_F(LuckTest, RepeatedRunsFailAFlakySolutionAndKeepEveryVerdict) {
  opt_.repeat = 3;
  opt_.sanitize = {"memcheck"};
  // Fails every other run: a counter in its workspace, which the three runs share.
  const std::string flaky =
      "c=$(cat count 2>/dev/null || echo 0); c=$((c+1)); echo $c > count; "
      "[ $((c % 2)) -eq 1 ] || { echo unlucky; exit 1; }";
  std::vector<Problem> ps = {shell_problem("f/flaky"), shell_problem("f/steady"),
                             shell_problem("f/wrong")};
  auto r = run(ps, {sol("f/flaky", flaky), sol("f/steady", "echo ok"), sol("f/wrong", "exit 2")});
  const GradedSolution& g = r[K("f/flaky", 0)];
  EXPECT_EQ(g.verdict, Verdict::test_fail);
  EXPECT_EQ(g.detail, "run 2 of 3: test exited with code 1");
  EXPECT_NE(g.test.log.find("unlucky"), std::string::npos) << "the failing run's log";
  ASSERT_EQ(g.repeats.size(), 3u);
  EXPECT_EQ(g.repeats[0].verdict, Verdict::pass);
  EXPECT_EQ(g.repeats[1].verdict, Verdict::test_fail);
  EXPECT_EQ(g.repeats[2].verdict, Verdict::pass);
  EXPECT_TRUE(g.flaky());
  EXPECT_TRUE(g.sanitizer.empty()) << "only a solution that passed every run is checked";

  const GradedSolution& steady = r[K("f/steady", 0)];
  EXPECT_EQ(steady.verdict, Verdict::pass);
  EXPECT_EQ(steady.repeats.size(), 3u);
  EXPECT_FALSE(steady.flaky());
  EXPECT_EQ(steady.sanitizer.size(), 1u) << "checked once, after its three runs";
  EXPECT_EQ(r[K("f/wrong", 0)].verdict, Verdict::test_fail);
  EXPECT_FALSE(r[K("f/wrong", 0)].flaky());
  EXPECT_EQ(sanitizer_runs().size(), 1u);
}

TEST(EvaluatorFeed, GradesJobsAsTheyArriveAndReturnsWhenTheFeedCloses) {
  testing::TempDir dir;
  setenv("KJ_BUILD_COUNTER", (dir / "count").c_str(), 1);
  EvalOptions opt;
  opt.cache_dir = dir / "cache";
  opt.work_root = dir / "work";
  opt.build_workers = 2;
  opt.host_test_slots = 2;
  std::vector<Problem> ps = {shell_problem("f/a"), shell_problem("f/b"), shell_problem("f/c")};
  Evaluator ev(opt, host_machine());
  JobFeed feed;
  std::mutex mu;
  std::map<std::string, GradedSolution> got;
  std::map<std::string, std::chrono::steady_clock::time_point> graded_at;
  std::chrono::steady_clock::time_point last_sent;
  std::thread producer([&] {
    for (std::size_t i = 0; i < ps.size(); ++i) {
      if (i + 1 == ps.size()) last_sent = std::chrono::steady_clock::now();
      feed.push({&ps[i], sol(ps[i].task_id, i == 1 ? "exit 1" : "exit 0")});
      std::this_thread::sleep_for(std::chrono::milliseconds(700));
    }
    feed.close();
  });
  ev.run(feed, [&](const GradedSolution& g) {
    std::lock_guard<std::mutex> lock(mu);
    got[g.task_id] = g;
    graded_at[g.task_id] = std::chrono::steady_clock::now();
  });
  producer.join();
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got["f/a"].verdict, Verdict::pass);
  EXPECT_EQ(got["f/b"].verdict, Verdict::test_fail);
  EXPECT_EQ(got["f/c"].verdict, Verdict::pass);
  // The first job was graded before the last one was even sent (1.4 s later).
  EXPECT_LT(graded_at["f/a"], last_sent);
}

// A fed run (the service) never reaches the end of its run, where the quiet retries wait: a
// timeout under load is retried at once instead, and its verdict comes while the feed is open.
TEST(EvaluatorFeed, ATimeoutUnderLoadIsRetriedWhileTheFeedStaysOpen) {
  testing::TempDir dir;
  EvalOptions opt;
  opt.cache_dir = dir / "cache";
  opt.work_root = dir / "work";
  opt.build_workers = 2;
  opt.host_test_slots = 2;
  std::vector<Problem> ps = {shell_problem("t/a", 1), shell_problem("t/load", 10)};
  Evaluator ev(opt, host_machine());
  JobFeed feed;
  std::mutex mu;
  std::condition_variable cv;
  std::map<std::string, GradedSolution> got;
  bool before_close = false;
  std::thread producer([&] {
    feed.push({&ps[0], sol("t/a", "sleep 10")});
    feed.push({&ps[1], sol("t/load", "sleep 3")});
    std::unique_lock<std::mutex> lock(mu);
    // Both verdicts must come with the feed still open (30 s: far past both timeouts).
    before_close = cv.wait_for(lock, std::chrono::seconds(30), [&] { return got.size() == 2; });
    lock.unlock();
    feed.close();
  });
  ev.run(feed, [&](const GradedSolution& g) {
    std::lock_guard<std::mutex> lock(mu);
    got[g.task_id] = g;
    cv.notify_all();
  });
  producer.join();
  EXPECT_TRUE(before_close) << "a verdict waited for the feed to close";
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got["t/a"].verdict, Verdict::test_timeout);
  EXPECT_EQ(got["t/a"].test.attempts, 2) << "retried once";
  EXPECT_EQ(got["t/load"].verdict, Verdict::pass);
}

TEST(EvaluatorFeed, AnEmptyClosedFeedReturnsAtOnce) {
  testing::TempDir dir;
  EvalOptions opt;
  opt.cache_dir = dir / "cache";
  opt.work_root = dir / "work";
  Evaluator ev(opt, host_machine());
  JobFeed feed;
  feed.close();
  int n = 0;
  ev.run(feed, [&](const GradedSolution&) { ++n; });
  EXPECT_EQ(n, 0);
}

}  // namespace
}  // namespace kjudge
