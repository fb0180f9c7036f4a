// End to end through the real binary: the example pack (CUDA sources built with nvcc that run
// on the host) packed, verified, validated and evaluated; kill -9 and --resume; bad input.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "luck_problem.h"
#include "schema_validator.h"
#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;
const fs::path kSource = KJUDGE_SOURCE_DIR;
const std::string kBin = KJUDGE_BINARY;

struct Cmd {
  int rc;
  std::string out;  // stdout and stderr
};

Cmd sh(const std::string& command) {
  std::string full = "cd '" + kSource.string() + "' && " + command + " 2>&1";
  FILE* p = popen(full.c_str(), "r");
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), out};
}

bool have_nvcc() { return sh("command -v nvcc || test -x /usr/local/cuda/bin/nvcc").rc == 0; }

// Shared by the tests of this file (ctest may run them in parallel: the cache is safe for that).
fs::path shared_cache() { return fs::path(KJUDGE_BINARY).parent_path() / "test-cache"; }

std::vector<nlohmann::json> read_jsonl(const fs::path& p) {
  std::vector<nlohmann::json> out;
  std::ifstream in(p);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) out.push_back(nlohmann::json::parse(line));
  return out;
}

class ExamplePack : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_nvcc()) GTEST_SKIP() << "nvcc not installed";
    setenv("PATH", (std::string(getenv("PATH")) + ":/usr/local/cuda/bin").c_str(), 1);
    problems_ = dir_ / "example-problems.tar.gz";
    solutions_ = dir_ / "example-solutions.tar.gz";
    auto a = sh(kBin + " problems pack examples/pack --release example -o " + problems_.string());
    ASSERT_EQ(a.rc, 0) << a.out;
    auto b =
        sh(kBin + " solutions pack examples/solutions examples/solutions-raw/escape.jsonl -o " +
           solutions_.string());
    ASSERT_EQ(b.rc, 0) << b.out;
  }
  std::string common() const {
    return " --cache-dir " + shared_cache().string() + " --work-dir " + (dir_ / "work").string();
  }
  testing::TempDir dir_;
  fs::path problems_, solutions_;
};

TEST_F(ExamplePack, PackVerifiesAndListsAsJson) {
  auto v = sh(kBin + " problems verify " + problems_.string());
  EXPECT_EQ(v.rc, 0) << v.out;
  EXPECT_NE(v.out.find("every hash verifies"), std::string::npos);
  auto l = sh(kBin + " problems list " + problems_.string() + " --json");
  ASSERT_EQ(l.rc, 0) << l.out;
  auto j = nlohmann::json::parse(l.out);
  EXPECT_EQ(j.size(), 5u);
  auto g = sh(kBin + " problems list " + problems_.string() + " --difficulty easy --json");
  EXPECT_LT(nlohmann::json::parse(g.out).size(), 5u);
  auto s = sh(kBin + " problems show " + problems_.string() + " example/saxpy");
  EXPECT_EQ(s.rc, 0);
  EXPECT_NE(s.out.find("hidden"), std::string::npos);
  EXPECT_EQ(s.out.find("int main"), std::string::npos) << "hidden tests are not printed by default";
}

TEST_F(ExamplePack, VerifyNamesATamperedProblemAndFails) {
  // Edit one problem's line but keep the pack's metadata.json: its MD5 no longer matches.
  fs::path x = dir_ / "x";
  fs::create_directories(x);
  ASSERT_EQ(sh("tar xzf " + problems_.string() + " -C " + x.string()).rc, 0);
  ASSERT_EQ(
      sh("sed -i '/example\\/saxpy/s/Implement/Write/' " + (x / "problems.jsonl").string()).rc, 0);
  ASSERT_EQ(sh("tar czf " + (dir_ / "tampered.tar.gz").string() + " -C " + x.string() +
               " metadata.json problems.jsonl")
                .rc,
            0);
  auto v = sh(kBin + " problems verify " + (dir_ / "tampered.tar.gz").string());
  EXPECT_EQ(v.rc, 1) << v.out;
  EXPECT_NE(v.out.find("example/saxpy"), std::string::npos) << v.out;
  EXPECT_EQ(v.out.find("example/prefix_sum"), std::string::npos) << "only the edited one";
}

TEST_F(ExamplePack, ValidatePassesEveryBaseline) {
  auto r = sh(kBin + " validate " + problems_.string() + " --out " + (dir_ / "v").string() +
              common() + " --json -q");
  ASSERT_EQ(r.rc, 0) << r.out;
  auto results = read_jsonl(dir_ / "v/results.jsonl");
  ASSERT_EQ(results.size(), 5u);
  for (const auto& g : results) EXPECT_EQ(g["verdict"], "pass") << g.dump();
  std::ifstream in(dir_ / "v/summary.json");
  auto summary = nlohmann::json::parse(in);
  EXPECT_DOUBLE_EQ(summary["pass_at_k"]["1"].get<double>(), 1.0);
}

TEST_F(ExamplePack, EvaluateGivesEveryExampleItsExpectedVerdict) {
  auto r = sh(kBin + " evaluate --problems " + problems_.string() + " --solutions " +
              solutions_.string() + " -k 1,2 --out " + (dir_ / "e").string() + common() + " -q");
  ASSERT_EQ(r.rc, 0) << r.out;
  std::map<std::pair<std::string, int>, nlohmann::json> got;
  for (const auto& g : read_jsonl(dir_ / "e/results.jsonl")) {
    auto key = std::make_pair(g["task_id"].get<std::string>(), g["sample"].get<int>());
    EXPECT_TRUE(got.emplace(key, g).second) << "duplicate result " << g.dump();
  }
  std::ifstream tsv(kSource / "examples/expected-verdicts.tsv");
  std::string line;
  int checked = 0;
  while (std::getline(tsv, line)) {
    std::istringstream fields(line);
    std::string task, sample, name, verdict;
    std::getline(fields, task, '\t');
    std::getline(fields, sample, '\t');
    std::getline(fields, name, '\t');
    std::getline(fields, verdict, '\t');
    auto it = got.find({task, std::stoi(sample)});
    ASSERT_NE(it, got.end()) << "no result for " << name;
    EXPECT_EQ(it->second["verdict"], verdict) << name << ": " << it->second["detail"];
    ++checked;
  }
  EXPECT_EQ(checked, static_cast<int>(got.size()));
  // The flood was capped and marked; the escape wrote nothing outside.
  const auto& flood = got[std::make_pair(std::string("example/float4_math"), 2)];
  EXPECT_TRUE(flood["test"]["log_truncated"].get<bool>());
  EXPECT_GT(flood["test"]["log_bytes"].get<size_t>(), 50'000'000u);
  EXPECT_LT(flood["test"]["log"].get<std::string>().size(), 20'000u);
  EXPECT_FALSE(fs::exists("/tmp/kjudge-evil.cu"));
  // Nothing the solutions spawned (a forked sleeper, a setsid daemon) is left running: no
  // process still has its working directory in one of this run's workspaces.
  int left = 0;
  for (const auto& e : fs::directory_iterator("/proc")) {
    std::error_code ec;
    auto cwd = fs::read_symlink(e.path() / "cwd", ec);
    if (!ec && cwd.string().rfind((dir_ / "work").string(), 0) == 0) ++left;
  }
  EXPECT_EQ(left, 0) << "a spawned process outlived its run";

  std::ifstream in(dir_ / "e/summary.json");
  auto summary = nlohmann::json::parse(in);
  EXPECT_EQ(summary["solutions"], checked);
  EXPECT_FALSE(summary["pass_at_k"]["2"].is_null());
  EXPECT_EQ(summary["verdicts"]["invalid_solution"], 4);
  EXPECT_EQ(summary["sandbox"], "bwrap") << "solutions run sandboxed by default";
}

TEST_F(ExamplePack, UnsandboxedRunsSaySoInTheirReports) {
  auto r = sh(kBin + " validate " + problems_.string() + " --out " + (dir_ / "n").string() +
              common() + " --sandbox none --task example/saxpy");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("WARNING: --sandbox none"), std::string::npos) << r.out;
  std::ifstream in(dir_ / "n/summary.json");
  auto summary = nlohmann::json::parse(in);
  EXPECT_EQ(summary["sandbox"], "none");
  EXPECT_FALSE(summary["warnings"].empty());
}

TEST_F(ExamplePack, KilledRunResumesWithoutRedoingOrDuplicating) {
  fs::path out = dir_ / "k";
  std::string cmd = kBin + " evaluate --problems " + problems_.string() + " --solutions " +
                    solutions_.string() + " --out " + out.string() + " --work-dir " +
                    (dir_ / "work").string() + " --cache-dir " + (dir_ / "cold-cache").string() +
                    " -q";
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    execl("/bin/sh", "sh", "-c", ("cd '" + kSource.string() + "' && exec " + cmd).c_str(), nullptr);
    _exit(127);
  }
  // Kill it hard once a few results are journalled, however long a loaded machine takes to get
  // there (bounded below ctest's limit), unless it ended first.
  bool ended = false;
  for (int i = 0; i < 3000 && !ended; ++i) {
    if (fs::exists(out / "results.jsonl") && read_jsonl(out / "results.jsonl").size() >= 3) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    ended = waitpid(pid, nullptr, WNOHANG) == pid;
  }
  if (!ended) {
    kill(-pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
  auto before = read_jsonl(out / "results.jsonl");
  ASSERT_GE(before.size(), 3u);
  ASSERT_LT(before.size(), 22u) << "the run finished before it could be killed";

  auto again = sh(cmd);
  EXPECT_NE(again.rc, 0) << "an existing run directory needs --resume";
  auto r = sh(cmd + " --resume");
  ASSERT_EQ(r.rc, 0) << r.out;
  auto after = read_jsonl(out / "results.jsonl");
  EXPECT_EQ(after.size(), 22u);
  std::set<std::pair<std::string, int>> keys;
  for (const auto& g : after)
    keys.insert({g["task_id"].get<std::string>(), g["sample"].get<int>()});
  EXPECT_EQ(keys.size(), after.size()) << "no duplicates";
  for (size_t i = 0; i < before.size(); ++i) EXPECT_EQ(after[i], before[i]) << "nothing redone";
}

// --resume without -k writes the summary anew with the pass@k values the run was started with,
// not the default (issue 38); a -k given on --resume still wins.
TEST_F(ExamplePack, ResumeWithoutKKeepsTheRunsPassAtK) {
  const fs::path out = dir_ / "ks";
  const std::string cmd = kBin + " evaluate --problems " + problems_.string() + " --solutions " +
                          solutions_.string() + " --out " + out.string() + common() + " -q";
  auto first = sh(cmd + " -k 1,2");
  ASSERT_NE(first.rc, 4) << first.out;  // findings (exit 1) are the example's
  auto summary = [&] {
    std::ifstream in(out / "summary.json");
    return nlohmann::json::parse(in);
  };
  ASSERT_TRUE(summary()["pass_at_k"].contains("2")) << summary().dump();
  auto resumed = sh(cmd + " --resume");
  EXPECT_EQ(resumed.rc, first.rc) << resumed.out;
  EXPECT_TRUE(summary()["pass_at_k"].contains("2")) << summary()["pass_at_k"].dump();
  auto again = sh(cmd + " --resume -k 1");
  EXPECT_EQ(again.rc, first.rc) << again.out;
  EXPECT_FALSE(summary()["pass_at_k"].contains("2")) << summary()["pass_at_k"].dump();
}

// --build-only on a machine without a GPU (as in CI): the cheat corpus's ComputeEval problem, which
// needs a GPU to test, built with its own build command (nvcc) for each of its solutions. Those
// that bring files the hidden test would compile in place of its own are refused before they are
// written (invalid_solution); those whose program runs code ahead of the main guard
// (forge_main_preinit) or defines a name the guard and profiler rely on (define_getenv,
// define_write) are refused once built; every other builds, and none is tested. A run of builds
// is never resumed as a tested run.
TEST(BuildOnly, BuildsWithoutAGpuAndRefusesWhatTheCorpusExpects) {
  if (!have_nvcc()) GTEST_SKIP() << "nvcc not installed";
  setenv("PATH", (std::string(getenv("PATH")) + ":/usr/local/cuda/bin").c_str(), 1);
  testing::TempDir d;
  const fs::path ce = kSource / "tests/cheats/computeeval";
  ASSERT_EQ(
      sh(kBin + " problems pack " + (ce / "problem").string() + " -o " + (d / "p.tar.gz").string())
          .rc,
      0);
  ASSERT_EQ(sh(kBin + " solutions pack " + (ce / "solutions").string() + " -o " +
               (d / "s-solutions.tar.gz").string())
                .rc,
            0);
  const std::string args = " --problems " + (d / "p.tar.gz").string() + " --solutions " +
                           (d / "s-solutions.tar.gz").string() + " --out " + (d / "b").string() +
                           " --cache-dir " + shared_cache().string() + " --work-dir " +
                           (d / "work").string() + " -q";
  auto r = sh(kBin + " evaluate" + args + " --build-only --json");
  ASSERT_EQ(r.rc, 0) << r.out;
  // What each solution must come to without a GPU, from the corpus's manifest: refused before
  // its files are written (invalid), refused once built (build_fail), or built.
  std::map<int, std::string> expected;
  std::ifstream manifest(kSource / "tests/cheats/manifest.tsv");
  for (std::string line; std::getline(manifest, line);) {
    std::vector<std::string> c;
    std::stringstream cells(line);
    for (std::string cell; std::getline(cells, cell, '\t');) c.push_back(cell);
    if (c.size() != 7 || c[1] != "computeeval") continue;
    std::ifstream spec(kSource / "tests/cheats" / fs::path(c[0]).parent_path() /
                       "solution-spec.yaml");
    std::string text((std::istreambuf_iterator<char>(spec)), {});
    const int sample = std::stoi(text.substr(text.find("sample:") + 7));
    expected[sample] = c[5] == "invalid"                              ? "invalid_solution"
                       : c[5].find("build_fail") != std::string::npos ? "build_error"
                                                                      : "pass";
  }
  auto results = read_jsonl(d / "b/results.jsonl");
  ASSERT_GE(results.size(), expected.size());
  std::map<std::string, int> seen;
  for (const auto& g : results) {
    EXPECT_FALSE(g["test"]["ran"].get<bool>()) << g.dump();
    const int sample = g["sample"].get<int>();
    // The honest solution (sample 0) has no line: it builds.
    const std::string want = expected.count(sample) ? expected[sample] : "pass";
    ++seen[want];
    EXPECT_EQ(g["verdict"], want) << g.dump();
    const std::string detail = g["detail"].get<std::string>();
    if (want == "build_error")
      EXPECT_EQ(detail.rfind("refused: ", 0), 0u) << detail;
    else if (want == "pass")
      EXPECT_EQ(detail, "built only (not tested in this pass)");
    else
      EXPECT_NE(detail.find("file '"), std::string::npos) << "names the file: " << detail;
  }
  EXPECT_GE(seen["build_error"], 3);  // forge_main_preinit, define_getenv, define_write
  EXPECT_GE(seen["invalid_solution"], 6);
  std::ifstream in(d / "b/summary.json");
  auto summary = nlohmann::json::parse(in);
  EXPECT_EQ(summary["build_only"], true);

  auto mixed = sh(kBin + " evaluate" + args + " --resume");
  EXPECT_EQ(mixed.rc, 2) << mixed.out;
  EXPECT_NE(mixed.out.find("jobs_fingerprint"), std::string::npos) << mixed.out;
  auto bench = sh(kBin + " evaluate" + args + " --build-only --benchmark --resume");
  EXPECT_EQ(bench.rc, 2) << bench.out;
  EXPECT_NE(bench.out.find("--build-only"), std::string::npos) << bench.out;
}

// Issue 34, "Luck does not pass", end to end (tests/luck_problem.h): --memcheck with the fake
// compute-sanitizer, and --repeat with a solution that fails every other run.
class LuckChecks : public ::testing::Test {
 protected:
  void SetUp() override { testing::write_luck_pack(d_.path()); }
  std::string common(const std::string& out) const {
    return " --out " + (d_ / out).string() + " --cache-dir " + (d_ / "cache").string() +
           " --work-dir " + (d_ / "work").string() + " --sanitizer " +
           testing::fake_compute_sanitizer().string();
  }
  nlohmann::json summary(const std::string& out) const {
    std::ifstream in(d_ / out / "summary.json");
    return nlohmann::json::parse(in);
  }
  testing::TempDir d_;
};

TEST_F(LuckChecks, EvaluateFailsAnOutOfBoundsReadAndAFlakySolutionAndSaysSo) {
  const std::string args = " evaluate --problems " + (d_ / "problems").string() + " --solutions " +
                           (d_ / "solutions").string() + " --task luck/ok" + common("e") +
                           " --memcheck";
  auto r = sh(kBin + args + " --repeat 3");
  ASSERT_EQ(r.rc, 0) << r.out;
  std::map<int, nlohmann::json> got;
  for (const auto& g : read_jsonl(d_ / "e/results.jsonl")) got[g["sample"].get<int>()] = g;
  ASSERT_EQ(got.size(), 3u) << r.out;
  EXPECT_EQ(got[0]["verdict"], "pass") << got[0].dump();
  EXPECT_EQ(got[0]["sanitizer"][0]["outcome"], "clean");
  EXPECT_EQ(got[1]["verdict"], "sanitizer_error") << got[1].dump();
  EXPECT_EQ(got[1]["sanitizer"][0]["report"][0], "Invalid __global__ read of size 4 bytes");
  EXPECT_EQ(got[2]["verdict"], "test_fail") << got[2].dump();
  EXPECT_EQ(got[2]["flaky"], true);
  EXPECT_EQ(got[2]["repeats"].size(), 3u);
  EXPECT_EQ(got[2]["detail"], "run 2 of 3: test exited with code 1");

  const auto s = summary("e");
  EXPECT_EQ(s["sanitizer"]["errors"], 1);
  EXPECT_EQ(s["sanitizer"]["clean"], 1);
  EXPECT_EQ(s["repeat"]["flaky"], 1);
  EXPECT_NEAR(s["pass_at_k"]["1"].get<double>(), 1.0 / 3, 1e-9);
  EXPECT_NE(r.out.find("sanitizer (memcheck): 2 passing solutions checked: 1 clean, 1 with errors"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("flaky luck/ok#2: pass test_fail pass → test_fail"), std::string::npos)
      << r.out;
  // What the files say is what docs/schemas says they may.
  auto schema = [](const std::string& name) {
    std::ifstream in(kSource / "docs/schemas" / (name + ".schema.json"));
    return testing::SchemaValidator(nlohmann::json::parse(in));
  };
  for (const auto& g : read_jsonl(d_ / "e/results.jsonl"))
    EXPECT_TRUE(schema("result").errors(g).empty()) << g.dump();
  EXPECT_TRUE(schema("summary").errors(s).empty()) << s.dump();
  std::ifstream run_json(d_ / "e/run.json");
  const auto run = nlohmann::json::parse(run_json);
  EXPECT_TRUE(schema("run").errors(run).empty()) << run.dump();
  EXPECT_EQ(run["checks"], nlohmann::json({{"repeat", 3}, {"sanitize", {"memcheck"}}}));

  // The checks are part of the run: resumed with others, refused; with the same, nothing to do.
  auto other = sh(kBin + args + " --repeat 2 --resume");
  EXPECT_EQ(other.rc, 2) << other.out;
  EXPECT_NE(other.out.find("--repeat or --sanitize"), std::string::npos) << other.out;
  auto same = sh(kBin + args + " --repeat 3 --resume -q");
  EXPECT_EQ(same.rc, 0) << same.out;
  EXPECT_EQ(read_jsonl(d_ / "e/results.jsonl").size(), 3u);
}

TEST_F(LuckChecks, ValidateNamesABaselineTheSanitizerFlagsAsItsProblemsDefect) {
  auto r = sh(kBin + " validate " + (d_ / "problems").string() + common("v") +
              " --sanitize memcheck,racecheck --skip-env-check");
  EXPECT_EQ(r.rc, 1) << r.out;
  EXPECT_NE(r.out.find("defective baseline luck/oob#0: memcheck"), std::string::npos) << r.out;
  const auto s = summary("v");
  bool noted = false;
  for (const auto& n : s["notes"])
    noted |= n.get<std::string>().find("compute-sanitizer flagged 1 baseline (luck/oob)") !=
             std::string::npos;
  EXPECT_TRUE(noted) << s["notes"].dump();
  EXPECT_EQ(s["sanitizer"]["by_tool"]["racecheck"]["clean"], 2);
}

// A problem whose own baseline the sanitizer flags (ComputeEval's CUDA/10 writes past its shared
// memory): a solution with the same errors is not charged for them, one of another problem is.
TEST_F(LuckChecks, ErrorsTheProblemsOwnBaselineHasAreReportedNotCharged) {
  const std::string oob =
      "#include <stdio.h>\nint solve(void) { puts(\"FAKE-OOB\"); return 42; }\n";
  for (const std::string id : {"luck/oob", "luck/ok"}) {
    const fs::path s = d_ / "solutions-b" / (id == "luck/oob" ? "a" : "b");
    testing::write_text(s / "solution-spec.yaml", "task_id: " + id + "\nsample: 0\n");
    testing::write_text(s / "solution.c", oob);
  }
  auto r = sh(kBin + " evaluate --problems " + (d_ / "problems").string() + " --solutions " +
              (d_ / "solutions-b").string() + common("b") + " --memcheck");
  ASSERT_EQ(r.rc, 0) << r.out;
  std::map<std::string, nlohmann::json> got;
  for (const auto& g : read_jsonl(d_ / "b/results.jsonl")) got[g["task_id"]] = g;
  ASSERT_EQ(got.size(), 2u) << r.out;
  EXPECT_EQ(got["luck/oob"]["verdict"], "pass") << got["luck/oob"].dump();
  EXPECT_EQ(got["luck/oob"]["sanitizer"][0]["outcome"], "errors");
  EXPECT_EQ(got["luck/oob"]["sanitizer"][0]["baseline_too"], true);
  EXPECT_NE(got["luck/oob"]["detail"].get<std::string>().find("not charged"), std::string::npos);
  EXPECT_EQ(got["luck/ok"]["verdict"], "sanitizer_error") << got["luck/ok"].dump();
  std::ifstream run_json(d_ / "b/run.json");
  const auto run = nlohmann::json::parse(run_json);
  ASSERT_EQ(run["baselines"].size(), 1u) << run.dump(2);
  EXPECT_EQ(run["baselines"][0]["task_id"], "luck/oob");
  EXPECT_EQ(run["baselines"][0]["sanitizer_errors"], nlohmann::json({"memcheck"}));
  const auto s = summary("b");
  bool warned = false;
  for (const auto& w : s["warnings"])
    warned |= w.get<std::string>().find("own baselines (luck/oob)") != std::string::npos;
  EXPECT_TRUE(warned) << s.dump(2);
  std::ifstream in(kSource / "docs/schemas/run.schema.json");
  EXPECT_TRUE(testing::SchemaValidator(nlohmann::json::parse(in)).errors(run).empty())
      << run.dump();
  for (const auto& [id, g] : got) {
    std::ifstream rs(kSource / "docs/schemas/result.schema.json");
    EXPECT_TRUE(testing::SchemaValidator(nlohmann::json::parse(rs)).errors(g).empty()) << g.dump();
  }
}

// validate judges the baselines themselves: one that needs more than its own limit even alone
// on this machine (ComputeEval 2026-1's cudnn/76 builds in 154 s of its 120 s on an H100) runs
// again under ten times it, passes on what it does, and the summary names it with what it took.
TEST_F(LuckChecks, ValidateGivesABaselineOverItsLimitTheMachinesLimitAndSaysSo) {
  const fs::path p = d_ / "slow/problems/slow/one";
  testing::write_text(p / "problem-spec.yaml",
                      "type: cuda_cpp\nschema_version: 2\ntask_id: slow/one\n"
                      "date: \"2026-11-28\"\nprompt: Return 42 from solve().\n"
                      "metadata: {difficulty: easy, host_only: true}\ngroup: slow\n"
                      "source_references: null\nbuild_command: cc -O1 -o test.out solution.c "
                      "test/main.c\ntest_command: sleep 1.5; ./test.out\nbenchmark_command: null\n"
                      "min_cuda_toolkit: null\ncompute_capability: null\n"
                      "requires_datacenter_gpu: false\ntimeout_seconds: 1.0\n");
  testing::write_text(p / "test/main.c",
                      "int solve(void);\nint main(void) { return solve() == 42 ? 0 : 1; }\n");
  testing::write_text(p / "solution/solution.c", "int solve(void) { return 42; }\n");
  auto r = sh(kBin + " validate " + (d_ / "slow/problems").string() + common("slow/v") +
              " --skip-env-check");
  ASSERT_EQ(r.rc, 0) << r.out;
  const auto results = read_jsonl(d_ / "slow/v/results.jsonl");
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0]["verdict"], "pass") << results[0].dump(2);
  EXPECT_EQ(results[0]["test"]["extended_limit_s"], 10.0) << results[0].dump(2);
  EXPECT_GE(results[0]["test"]["seconds"].get<double>(), 1.5);
  const auto s = summary("slow/v");
  bool noted = false;
  for (const auto& n : s["notes"])
    noted |= n.get<std::string>().find("slow/one (test 2 s of its 1 s)") != std::string::npos;
  EXPECT_TRUE(noted) << s["notes"].dump(2);
}

TEST_F(LuckChecks, WithoutASanitizerNothingRunsAndDoctorSaysWhy) {
  auto doctor = sh(kBin + " doctor --no-probe --memcheck --sanitizer " + (d_ / "none").string());
  EXPECT_EQ(doctor.rc, 3) << doctor.out;
  EXPECT_NE(doctor.out.find("compute-sanitizer"), std::string::npos) << doctor.out;
  EXPECT_NE(doctor.out.find("--sanitize needs it"), std::string::npos) << doctor.out;
  auto quiet = sh(kBin + " doctor --no-probe --sanitizer " + (d_ / "none").string());
  EXPECT_EQ(quiet.out.find("--sanitize needs it"), std::string::npos) << "not asked for";
  auto run = sh(kBin + " validate " + (d_ / "problems").string() + " --out " + (d_ / "x").string() +
                " --memcheck --sanitizer " + (d_ / "none").string());
  EXPECT_EQ(run.rc, 3) << run.out;
  EXPECT_FALSE(fs::exists(d_ / "x/results.jsonl"));
  auto typo = sh(kBin + " validate " + (d_ / "problems").string() + " --sanitize memchek");
  EXPECT_EQ(typo.rc, 2) << typo.out;
}

TEST(CliErrors, BadInputNamesTheFileAndExitsWithUsageCode) {
  testing::TempDir d;
  testing::write_text(d / "notgz.tar.gz", "this is not an archive");
  auto r = sh(kBin + " problems verify " + (d / "notgz.tar.gz").string());
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("notgz.tar.gz"), std::string::npos) << r.out;

  testing::write_text(d / "problems.jsonl", "{\"task_id\": 3}\n");
  auto l = sh(kBin + " problems list " + (d / "problems.jsonl").string());
  EXPECT_NE(l.rc, 0);
  EXPECT_NE(l.out.find("problems.jsonl:1"), std::string::npos) << l.out;

  auto m = sh(kBin + " problems list /nonexistent/pack.tar.gz");
  EXPECT_EQ(m.rc, 2);
  EXPECT_NE(m.out.find("/nonexistent/pack.tar.gz"), std::string::npos) << m.out;

  auto u = sh(kBin + " evaluate --problems x");
  EXPECT_EQ(u.rc, 2) << u.out;
  EXPECT_NE(sh(kBin + " evaluate --help").out.find("--resume"), std::string::npos);
}

TEST(CliErrors, YamlConfigSetsOptionsAndTheCommandLineWins) {
  if (!have_nvcc()) GTEST_SKIP() << "nvcc not installed";
  testing::TempDir d;
  testing::write_text(d / "cfg.yaml",
                      "problems:\n  list:\n    json: true\n    difficulty: [hard]\n");
  auto r = sh(kBin + " --config " + (d / "cfg.yaml").string() + " problems list examples/pack");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(nlohmann::json::parse(r.out).size(), 0u);
  auto o = sh(kBin + " --config " + (d / "cfg.yaml").string() +
              " problems list examples/pack --difficulty easy");
  EXPECT_GT(nlohmann::json::parse(o.out).size(), 0u);
  testing::write_text(d / "bad.yaml", "problems: [unclosed\n");
  auto b = sh(kBin + " --config " + (d / "bad.yaml").string() + " problems list examples/pack");
  EXPECT_EQ(b.rc, 2);
  EXPECT_NE(b.out.find((d / "bad.yaml").string() + ":2: invalid YAML"), std::string::npos) << b.out;
}

// ---- bad and empty inputs on the command line (issue 32) ----

TEST(CliInputs, UnknownOrEmptyConfigIsAnErrorNamingFileAndKey) {
  testing::TempDir d;
  const std::string cfg = (d / "cfg.yaml").string();
  testing::write_text(cfg, "problems:\n  list:\n    jsno: true\n");
  auto r = sh(kBin + " --config " + cfg + " problems list examples/pack");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find(cfg), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("unknown key 'problems.list.jsno'"), std::string::npos) << r.out;

  testing::write_text(cfg, "");
  r = sh(kBin + " --config " + cfg + " problems list examples/pack");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find(cfg + ": the config file is empty"), std::string::npos) << r.out;

  testing::write_text(cfg, "problems:\n  list:\n    json: [[1]]\n");
  r = sh(kBin + " --config=" + cfg + " problems list examples/pack");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find(cfg + ":3"), std::string::npos) << r.out;
}

TEST(CliInputs, AFifoOrAliasBombConfigIsRefusedBounded) {
  testing::TempDir d;
  const std::string fifo = (d / "fifo.yaml").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  // `timeout` turns a hang into rc 124, which fails the rc check.
  auto r = sh("timeout 20 " + kBin + " --config " + fifo + " problems list examples/pack");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("not a regular file"), std::string::npos) << r.out;

  std::string bomb = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 9; ++i) {
    bomb += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) bomb += (k ? ", *l" : "*l") + std::to_string(i - 1);
    bomb += "]\n";
  }
  // Anchors come before their aliases.
  testing::write_text(d / "bomb.yaml", bomb + "problems:\n  list:\n    difficulty: *l8\n");
  r = sh("ulimit -v 2000000; timeout 20 " + kBin + " --config " + (d / "bomb.yaml").string() +
         " problems list examples/pack");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("aliases"), std::string::npos) << r.out;
}

TEST(CliInputs, PackingRefusesLinksAndNeverPacksTheirTarget) {
  testing::TempDir d;
  ASSERT_EQ(sh("cp -r examples/pack/saxpy " + (d / "p").string()).rc, 0);
  testing::write_text(d / "secret", "root:$6$not-for-packs:19000::::::\n");
  fs::create_symlink(d / "secret", d / "p" / "context" / "shadow");
  const std::string out = (d / "out.tar.gz").string();
  auto r = sh(kBin + " problems pack " + (d / "p").string() + " -o " + out);
  EXPECT_NE(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find((d / "p" / "context" / "shadow").string()), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("symbolic link"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(out)) << "nothing loaded, so nothing is packed";

  fs::remove(d / "p" / "context" / "shadow");
  r = sh(kBin + " problems pack " + (d / "p").string() + " -o " + out);
  EXPECT_EQ(r.rc, 0) << r.out;
}

TEST(CliInputs, EmptyInputsExitNonZeroNamingThem) {
  testing::TempDir d;
  testing::write_text(d / "empty.tar.gz", "");
  auto r = sh(kBin + " problems list " + (d / "empty.tar.gz").string());
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find((d / "empty.tar.gz").string() + ": the file is empty"), std::string::npos)
      << r.out;
  fs::create_directories(d / "nothing");
  r = sh(kBin + " problems pack " + (d / "nothing").string() + " -o " + (d / "o.tar.gz").string());
  EXPECT_NE(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find((d / "nothing").string()), std::string::npos) << r.out;
  r = sh(kBin + " triton list " + (d / "nothing").string());
  EXPECT_NE(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("TritonBench_G_v1.json"), std::string::npos) << r.out;
}

// evaluate with solutions that match no selected problem grades nothing: a usage error naming
// the solutions and the tasks the pack lacks, not an empty success (issue 38).
TEST(CliInputs, SolutionsForNoSelectedProblemAreAnError) {
  testing::TempDir d;
  testing::write_text(d / "s.jsonl",
                      R"({"schema_version": 1, "type": "file", "task_id": "NOPE/1", "sample": 0, )"
                      R"("files": [{"path": "solution.cu", "content": "int x;"}]})"
                      "\n");
  auto r = sh(kBin + " evaluate --problems examples/pack --solutions " + (d / "s.jsonl").string() +
              " --out " + (d / "run").string() + " -q");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("none of its 1 solutions is for a selected problem (the problems pack "
                       "lacks NOPE/1)"),
            std::string::npos)
      << r.out;
  EXPECT_FALSE(fs::exists(d / "run" / "results.jsonl"));
}

TEST(CliInputs, ReleaseNamesAPackInTheDatasetsFolderAsComputeEvalDoes) {
  testing::TempDir d;
  const fs::path data = d / "datasets";
  fs::create_directories(data / "compute-eval");
  auto r = sh(kBin + " problems pack examples/pack -o " +
              (data / "compute-eval/2099-1-problems.tar.gz").string());
  ASSERT_EQ(r.rc, 0) << r.out;
  // The pack's problems, built only (no GPU here), found by the release's name.
  r = sh(kBin + " validate --release 2099-1 --datasets " + data.string() +
         " --build-only --limit 1 -q --json --out " + (d / "run").string());
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("\"build_only\": true"), std::string::npos) << r.out;
  const nlohmann::json run = nlohmann::json::parse(testing::read_text(d / "run/run.json"));
  EXPECT_NE(run.dump().find("2099-1-problems.tar.gz"), std::string::npos) << run.dump();
  // KJUDGE_DATASETS names the folder too; a missing release says where it looked.
  r = sh("KJUDGE_DATASETS=" + data.string() + " " + kBin +
         " evaluate --release 2098-1 --solutions x.tar.gz");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("release 2098-1 not found"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("releases there: 2099-1"), std::string::npos) << r.out;
  // One of the two, never both, never neither.
  r = sh(kBin + " validate examples/pack --release 2099-1 --datasets " + data.string());
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("either PACK or --release"), std::string::npos) << r.out;
  r = sh(kBin + " validate");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("PACK: name the problems (or --release NAME)"), std::string::npos) << r.out;
}

TEST(CliInputs, NumericOptionsOutOfRangeAreRefused) {
  const std::string eval = kBin + " evaluate --problems examples/pack --solutions x ";
  const std::string task = kBin + " task run examples/tasks/vectoradd x.cu ";
  const std::pair<std::string, std::string> cases[] = {
      {"--workers", eval + "--workers=-3"},
      {"-k", eval + "-k 1,0"},
      {"--retries", eval + "--retries 1e9"},
      {"--tests-per-gpu", eval + "--tests-per-gpu 0"},
      {"--max-time", task + "--max-time nan"},
      {"--gpu-wait", task + "--gpu-wait 1e308"},
      {"--target-error", task + "--target-error inf"},
      {"--max-runs", task + "--max-runs=-1"},
      {"--slurm-poll", eval + "--slurm-poll nan"},
      {"--log-bytes", kBin + " report x --log-bytes=-1"},
      {"--port", kBin + " serve --no-judge --port 70000"},
      {"--max-in-flight", kBin + " serve --no-judge --max-in-flight 0"},
      {"--max-time", kBin + " serve --no-judge --max-time nan"},
      {"--bench-runs", kBin + " serve --no-judge --bench-runs=-2"},
      {"--max-stored", kBin + " serve --no-judge --max-stored lots"}};
  for (const auto& [option, cmd] : cases) {
    auto r = sh(cmd);
    EXPECT_EQ(r.rc, 2) << cmd << "\n" << r.out;
    EXPECT_NE(r.out.find(option), std::string::npos) << cmd << "\n" << r.out;
  }
}

}  // namespace
}  // namespace kjudge
