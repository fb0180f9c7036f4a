// kjudge run --executor slurm end to end: the fake OpenAI-compatible server
// (tests/fake_llm_server.py) answers from this machine while the answers are graded on the
// real single-node Slurm cluster in shards submitted as they accumulate; the merged run must be
// what a local kjudge run gives. Skips without Slurm, root or nvcc; fails when Slurm is
// installed but the cluster does not start.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "core/datapack.h"
#include "fake_llm_server.h"
#include "plan/load.h"
#include "slurm_fixture.h"
#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Key = std::pair<std::string, int>;
const fs::path kSource = KJUDGE_SOURCE_DIR;
const std::string kBin = KJUDGE_BINARY;
const char* kKey = "sk-test-0123456789abcdefWXYZ";

slurm::test::Cmd sh(const std::string& command) {
  return slurm::test::sh("cd '" + kSource.string() + "' && " + command);
}

std::map<Key, std::string> verdicts(const fs::path& journal) {
  std::map<Key, std::string> out;
  for (const auto& g : testing::read_jsonl(journal)) {
    Key k{g["task_id"].get<std::string>(), g["sample"].get<int>()};
    EXPECT_TRUE(out.emplace(k, g["verdict"].get<std::string>()).second)
        << "duplicate result " << k.first << "#" << k.second;
  }
  return out;
}

json read_json(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

class SlurmRun : public ::testing::Test {
 protected:
  void SetUp() override {
    if (sh("command -v nvcc || test -x /usr/local/cuda/bin/nvcc").rc != 0)
      GTEST_SKIP() << "nvcc not installed";
    cluster_ = std::make_unique<slurm::test::SlurmCluster>();
    if (!cluster_->why().empty()) GTEST_SKIP() << cluster_->why();
    ASSERT_TRUE(cluster_->start_error().empty()) << cluster_->start_error();
    setenv("PATH", (std::string(getenv("PATH")) + ":/usr/local/cuda/bin").c_str(), 1);
    // Every problem is answered with its baseline, except half_convert: prose, no code.
    LoadReport report;
    json answers = json::array();
    for (const auto& p : read_problems_any(kSource / "examples/pack", &report)) {
      std::string answer = "I would convert with __float2half_rn, but I cannot write it now.";
      if (p.task_id != "example/half_convert") {
        answer = "Here is the solution.\n\n";
        for (const auto& f : p.baseline_solution->files)
          answer += "```cuda\n// file: " + f.path + "\n" + f.content + "```\n\n";
      }
      answers.push_back({p.prompt.substr(0, 80), answer});
    }
    testing::write_text(dir_ / "answers.json", answers.dump());
    // Half a second per answer: with one request at a time the answers arrive over ~5 s.
    ASSERT_NO_FATAL_FAILURE(server_.start("--answers " + (dir_ / "answers.json").string() +
                                          " --expect-key " + kKey + " --default 'stall 0.5'"));
  }
  std::string run(const fs::path& out, const std::string& extra) const {
    return "env OPENAI_API_KEY=" + std::string(kKey) + " " + kBin +
           " run --problems examples/pack --model fake-coder --base-url " + server_.base_url() +
           " --env-file /nonexistent --samples 2 -k 1,2 --out " + out.string() + " --cache-dir " +
           (dir_ / "cache").string() + " --work-dir " + (dir_ / "work").string() + " " + extra;
  }

  std::unique_ptr<slurm::test::SlurmCluster> cluster_;
  testing::TempDir dir_;
  testing::FakeLlmServer server_;
};

TEST_F(SlurmRun, AnswersAreGradedInShardsAsTheyArriveLikeALocalRun) {
  auto local = sh(run(dir_ / "local", "--requests 4 -q"));
  ASSERT_EQ(local.rc, 0) << local.out;
  auto remote = sh(cluster_->env() + run(dir_ / "slurm",
                                         "--requests 1 --executor slurm --shard-size 3 "
                                         "--shard-wait 3 --slurm-poll 0.5"));
  ASSERT_EQ(remote.rc, 0) << remote.out;

  const auto want = verdicts(dir_ / "local/results.jsonl");
  EXPECT_EQ(want.size(), 10u);
  EXPECT_EQ(verdicts(dir_ / "slurm/results.jsonl"), want) << remote.out;
  const json ls = read_json(dir_ / "local/summary.json"),
             ss = read_json(dir_ / "slurm/summary.json");
  EXPECT_EQ(ss["pass_at_k"], ls["pass_at_k"]);
  EXPECT_EQ(ss["verdicts"], ls["verdicts"]);
  EXPECT_NEAR(ss["pass_at_k"]["1"].get<double>(), 0.8, 1e-9);
  EXPECT_EQ(ss["complete"], true);
  EXPECT_EQ(ss["command"], "run");
  EXPECT_EQ(ss["generation"]["answers"], 10);
  EXPECT_EQ(ss["executor"]["kind"], "slurm");
  EXPECT_EQ(ss["executor"]["resubmitted"], 0);

  // The generation side is a local run's: the journal, the raw answers and the pack.
  EXPECT_EQ(testing::read_jsonl(dir_ / "slurm/generation.jsonl").size(), 10u);
  EXPECT_TRUE(fs::exists(dir_ / "slurm/fake-coder-solutions.tar.gz"));
  EXPECT_TRUE(fs::exists(dir_ / "slurm/generation-summary.json"));

  // Shards of at most 3 answers, each graded its own; submitted while answers still came
  // (one sbatch per cut: had grading waited for every answer, there would be one).
  const json plan = read_json(dir_ / "slurm/slurm/plan.json");
  ASSERT_GE(plan["shards"].size(), 4u) << plan.dump(2);
  std::set<Key> seen;
  for (const auto& s : plan["shards"]) {
    EXPECT_LE(s["jobs"].size(), 3u);
    EXPECT_TRUE(fs::exists(s["solutions"].get<std::string>()));
    const auto part =
        verdicts(dir_ / "slurm/shards" / std::to_string(s["index"].get<int>()) / "results.jsonl");
    EXPECT_EQ(part.size(), s["jobs"].size());
    for (const auto& [k, v] : part) EXPECT_TRUE(seen.insert(k).second) << k.first;
  }
  EXPECT_EQ(seen.size(), 10u);
  const json subs = read_json(dir_ / "slurm/slurm/submissions.json")["submissions"];
  EXPECT_GE(subs.size(), 2u) << subs.dump(2);
}

}  // namespace
}  // namespace kjudge
