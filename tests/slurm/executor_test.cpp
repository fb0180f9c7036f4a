// kjudge evaluate --executor slurm end to end on the real single-node cluster of
// tests/slurm/start-cluster.sh: the example pack (host-only CUDA problems built with nvcc)
// graded through a job array must give what a local run gives; a shard cancelled mid-run
// (a real scancel of its array task) is resubmitted, resumes its own journal, and the merged
// result is complete with no duplicates. Skips without Slurm, root or nvcc; fails when Slurm
// is installed but the cluster does not start.
#include "slurm/executor.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>

#include "luck_problem.h"
#include "slurm_fixture.h"
#include "test_util.h"

namespace kjudge::slurm {
namespace {

namespace fs = std::filesystem;
using slurm::test::SlurmCluster;
const fs::path kSource = KJUDGE_SOURCE_DIR;
const std::string kBin = KJUDGE_BINARY;

using Key = std::pair<std::string, int>;

slurm::test::Cmd sh(const std::string& command) {
  return slurm::test::sh("cd '" + kSource.string() + "' && " + command);
}

// task/sample -> verdict, failing the test on a duplicate.
std::map<Key, std::string> verdicts(const fs::path& journal) {
  std::map<Key, std::string> out;
  for (const auto& g : testing::read_jsonl(journal)) {
    Key k{g["task_id"].get<std::string>(), g["sample"].get<int>()};
    EXPECT_TRUE(out.emplace(k, g["verdict"].get<std::string>()).second)
        << "duplicate result " << k.first << "#" << k.second;
  }
  return out;
}

nlohmann::json summary_of(const fs::path& run) {
  std::ifstream in(run / "summary.json");
  return nlohmann::json::parse(in);
}

class SlurmExecutor : public ::testing::Test {
 protected:
  void SetUp() override {
    if (sh("command -v nvcc || test -x /usr/local/cuda/bin/nvcc").rc != 0)
      GTEST_SKIP() << "nvcc not installed";
    cluster_ = std::make_unique<SlurmCluster>();
    if (!cluster_->why().empty()) GTEST_SKIP() << cluster_->why();
    ASSERT_TRUE(cluster_->start_error().empty()) << cluster_->start_error();
    // The array tasks inherit this environment (sbatch --export=ALL), nvcc included.
    setenv("PATH", (std::string(getenv("PATH")) + ":/usr/local/cuda/bin").c_str(), 1);
    problems_ = dir_ / "problems.tar.gz";
    solutions_ = dir_ / "solutions.tar.gz";
    auto a = sh(kBin + " problems pack examples/pack --release example -o " + problems_.string());
    ASSERT_EQ(a.rc, 0) << a.out;
    auto b = sh(kBin + " solutions pack examples/solutions -o " + solutions_.string());
    ASSERT_EQ(b.rc, 0) << b.out;
  }
  std::string evaluate(const fs::path& out, const fs::path& cache) const {
    return kBin + " evaluate --problems " + problems_.string() + " --solutions " +
           solutions_.string() + " -k 1,2 --out " + out.string() + " --cache-dir " +
           cache.string() + " --work-dir " + (dir_ / "work").string();
  }
  std::string slurm_env() const { return cluster_->env(); }

  std::unique_ptr<SlurmCluster> cluster_;
  testing::TempDir dir_;
  fs::path problems_, solutions_;
};

TEST_F(SlurmExecutor, ExamplePackGivesWhatALocalRunGives) {
  const fs::path cache = dir_ / "cache";
  auto local = sh(evaluate(dir_ / "local", cache) + " -q");
  ASSERT_EQ(local.rc, 0) << local.out;
  auto remote = sh(slurm_env() + evaluate(dir_ / "slurm", cache) +
                   " --executor slurm --shards 3 --slurm-poll 0.5");
  ASSERT_EQ(remote.rc, 0) << remote.out;
  EXPECT_NE(remote.out.find("submitted Slurm array"), std::string::npos) << remote.out;
  EXPECT_NE(remote.out.find("kjudge: slurm: shards 3 done"), std::string::npos) << remote.out;

  auto want = verdicts(dir_ / "local/results.jsonl");
  auto got = verdicts(dir_ / "slurm/results.jsonl");
  EXPECT_EQ(got, want);
  EXPECT_GE(want.size(), 15u);

  // Three shards, each graded its own part, and together exactly the run.
  std::set<Key> seen;
  for (int i = 0; i < 3; ++i) {
    auto part = verdicts(dir_ / "slurm/shards" / std::to_string(i) / "results.jsonl");
    EXPECT_FALSE(part.empty()) << "shard " << i;
    for (const auto& [k, v] : part) EXPECT_TRUE(seen.insert(k).second) << k.first;
  }
  EXPECT_EQ(seen.size(), want.size());
  EXPECT_TRUE(fs::exists(dir_ / "slurm/slurm/plan.json"));

  auto ls = summary_of(dir_ / "local"), ss = summary_of(dir_ / "slurm");
  EXPECT_EQ(ss["pass_at_k"], ls["pass_at_k"]);
  EXPECT_EQ(ss["verdicts"], ls["verdicts"]);
  EXPECT_EQ(ss["complete"], true);
  EXPECT_EQ(ss["sandbox"], ls["sandbox"]);
  EXPECT_EQ(ss["main_guard"], ls["main_guard"]) << "the shards' guard, as a local run says it";
  EXPECT_EQ(ss["executor"]["resubmitted"], 0);
}

TEST_F(SlurmExecutor, CancelledShardIsResubmittedAndMergedWithoutDuplicates) {
  // A cold cache and one build at a time keep the shards busy long enough to be cancelled
  // with most of their work still ahead.
  const fs::path out = dir_ / "killed";
  const fs::path log = dir_ / "killed.log";
  std::string cmd = slurm_env() + evaluate(out, dir_ / "cold-cache") +
                    " --workers 1 --executor slurm --shards 2 --slurm-poll 0.5 > " + log.string() +
                    " 2>&1; echo $? > " + (dir_ / "killed.rc").string();
  std::thread submitter([&] { sh(cmd); });

  // Wait for shard 0's first result, then cancel that array task for real.
  std::string job;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(240);
  while (std::chrono::steady_clock::now() < deadline) {
    if (!testing::read_jsonl(out / "shards/0/results.jsonl").empty() &&
        fs::exists(out / "slurm/submissions.json")) {
      std::ifstream in(out / "slurm/submissions.json");
      job = nlohmann::json::parse(in).at("submissions").at(0).at("job").get<std::string>();
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_FALSE(job.empty()) << "shard 0 never wrote a result";
  auto graded_before = testing::read_jsonl(out / "shards/0/results.jsonl").size();
  auto c = sh(slurm_env() + "scancel " + job + "_0");
  EXPECT_EQ(c.rc, 0) << c.out;
  submitter.join();

  const std::string output = testing::read_text(log);
  EXPECT_EQ(testing::read_text(dir_ / "killed.rc"), "0\n") << output;
  std::ifstream in(out / "slurm/submissions.json");
  auto record = nlohmann::json::parse(in);
  EXPECT_EQ(record["kind"], "kjudge-slurm-submissions");
  auto subs = record["submissions"];
  ASSERT_GE(subs.size(), 2u) << output;
  EXPECT_EQ(subs[1]["shards"], nlohmann::json::array({0})) << subs.dump();
  EXPECT_NE(subs[1]["why"].get<std::string>().find("shard 0"), std::string::npos);

  // The merged run is complete, each solution once, with the verdicts a local run gives.
  auto got = verdicts(out / "results.jsonl");
  auto want_local = sh(evaluate(dir_ / "local", dir_ / "cold-cache") + " -q");
  ASSERT_EQ(want_local.rc, 0) << want_local.out;
  EXPECT_EQ(got, verdicts(dir_ / "local/results.jsonl"));
  auto s = summary_of(out);
  EXPECT_EQ(s["complete"], true);
  EXPECT_EQ(s["executor"]["resubmitted"], 1);
  EXPECT_EQ(s["pass_at_k"], summary_of(dir_ / "local")["pass_at_k"]);
  // The second attempt resumed shard 0's journal: what the first graded was not graded again.
  auto shard0 = testing::read_jsonl(out / "shards/0/results.jsonl");
  std::set<Key> keys;
  for (const auto& g : shard0)
    EXPECT_TRUE(keys.insert({g["task_id"].get<std::string>(), g["sample"].get<int>()}).second)
        << "shard 0 graded " << g["task_id"] << " twice";
  EXPECT_GE(shard0.size(), graded_before);
}

// Issue 34's checks on the cluster (tests/luck_problem.h: host-only problems built with cc, the
// fake compute-sanitizer): every shard runs --repeat and --memcheck, and the merged journal and
// summary are a local run's.
TEST(SlurmLuckChecks, RepeatAndMemcheckReachEveryShardAndMergeAsALocalRunsDo) {
  SlurmCluster cluster;
  if (!cluster.why().empty()) GTEST_SKIP() << cluster.why();
  ASSERT_TRUE(cluster.start_error().empty()) << cluster.start_error();
  testing::TempDir dir;
  testing::write_luck_pack(dir.path());
  auto evaluate = [&](const std::string& out) {
    return kBin + " evaluate --problems " + (dir / "problems").string() + " --solutions " +
           (dir / "solutions").string() + " --task luck/ok --out " + (dir / out).string() +
           " --cache-dir " + (dir / "cache").string() + " --work-dir " + (dir / "work").string() +
           " --sanitizer " + testing::fake_compute_sanitizer().string() + " --memcheck --repeat 3";
  };
  auto local = sh(evaluate("local") + " -q");
  ASSERT_EQ(local.rc, 0) << local.out;
  auto remote =
      sh(cluster.env() + evaluate("slurm") + " --executor slurm --shards 3 --slurm-poll 0.5");
  ASSERT_EQ(remote.rc, 0) << remote.out;
  EXPECT_NE(remote.out.find("kjudge: slurm: shards 3 done"), std::string::npos) << remote.out;

  auto want = verdicts(dir / "local/results.jsonl");
  EXPECT_EQ(verdicts(dir / "slurm/results.jsonl"), want);
  EXPECT_EQ(want[Key("luck/ok", 1)], "sanitizer_error");
  EXPECT_EQ(want[Key("luck/ok", 2)], "test_fail");
  for (const auto& g : testing::read_jsonl(dir / "slurm/results.jsonl")) {
    EXPECT_EQ(g["repeats"].size(), 3u) << g.dump();
    EXPECT_EQ(g["flaky"], g["sample"] == 2) << g.dump();
  }
  auto ls = summary_of(dir / "local"), ss = summary_of(dir / "slurm");
  EXPECT_EQ(ss["sanitizer"], ls["sanitizer"]);
  EXPECT_EQ(ss["repeat"], ls["repeat"]);
  EXPECT_EQ(ss["repeat"]["flaky"], 1);
  std::ifstream in(dir / "slurm/run.json");
  EXPECT_EQ(nlohmann::json::parse(in)["checks"]["repeat"], 3);
}

TEST(SlurmShardArgv, DropsTheSubmittersOptionsAndKeepsTheRest) {
  std::vector<std::string> own = {"kjudge",
                                  "evaluate",
                                  "--problems",
                                  "p.tar.gz",
                                  "--executor",
                                  "slurm",
                                  "--out=r",
                                  "--shards",
                                  "3",
                                  "--resume",
                                  "-q",
                                  "--sbatch-arg",
                                  "--time=5",
                                  "--sandbox",
                                  "none",
                                  "--partition=gpu",
                                  "--max-parallel",
                                  "2",
                                  "-k",
                                  "1,2"};
  auto a = shard_argv(own, "/run/slurm/plan.json", 1, "/run/shards/1");
  std::vector<std::string> tail(a.begin() + 1, a.end());
  EXPECT_EQ(tail, (std::vector<std::string>{"evaluate", "--problems", "p.tar.gz", "--sandbox",
                                            "none", "-k", "1,2", "--executor", "local",
                                            "--shard-of", "/run/slurm/plan.json", "--shard", "1",
                                            "--out", "/run/shards/1"}));
}

}  // namespace
}  // namespace kjudge::slurm
