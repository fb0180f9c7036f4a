// kjudge evaluate --benchmark --executor slurm on the real single-node cluster: the shards time
// their passing solutions (host-only problems with a custom timing, so no GPU is needed) and
// the merged perf.jsonl and summary.performance are those of a local run: the same lines, key
// for key, and the same figures. Skips without Slurm or root; fails when Slurm is installed
// but the cluster does not start.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>

#include "core/problem_json.h"
#include "slurm_fixture.h"
#include "test_util.h"
#include "timed_problem.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Key = std::pair<std::string, int>;
const fs::path kSource = KJUDGE_SOURCE_DIR;
const std::string kBin = KJUDGE_BINARY;

slurm::test::Cmd sh(const std::string& command) {
  return slurm::test::sh("cd '" + kSource.string() + "' && " + command);
}

std::string timed_solution(int answer, double ms) {
  return "int solve(void) { return " + std::to_string(answer) +
         "; }\ndouble bench_ms(void) { return " + std::to_string(ms) + "; }\n";
}

std::map<Key, json> perf_lines(const fs::path& p) {
  std::map<Key, json> out;
  for (const auto& j : testing::read_jsonl(p)) {
    Key k{j["task_id"].get<std::string>(), j.value("sample", 0)};
    EXPECT_TRUE(out.emplace(k, j).second) << "two perf lines for " << k.first << "#" << k.second;
  }
  return out;
}

json summary_of(const fs::path& run) {
  std::ifstream in(run / "summary.json");
  return json::parse(in);
}

TEST(SlurmBenchmark, ShardsTimeTheirPassesAndMergeLikeALocalRun) {
  slurm::test::SlurmCluster cluster;
  if (!cluster.why().empty()) GTEST_SKIP() << cluster.why();
  ASSERT_TRUE(cluster.start_error().empty()) << cluster.start_error();
  testing::TempDir dir;
  // Four problems, three samples each: 2 ms, 20 ms (the baseline takes 10) and a wrong one.
  std::string lines;
  for (int t = 0; t < 4; ++t) {
    const std::string id = "timed/p" + std::to_string(t);
    testing::write_timed_problem(dir / "pack" / ("p" + std::to_string(t)), id, "timed");
    const std::vector<std::string> code = {timed_solution(42, 2), timed_solution(42, 20),
                                           timed_solution(41, 1)};
    for (int s = 0; s < 3; ++s) {
      Solution sol{id, s, {{"solution.c", code[static_cast<std::size_t>(s)]}}, ""};
      lines += solution_to_json(sol).dump() + "\n";
    }
  }
  testing::write_text(dir / "solutions.jsonl", lines);
  auto evaluate = [&](const std::string& out) {
    return kBin + " evaluate --problems " + (dir / "pack").string() + " --solutions " +
           (dir / "solutions.jsonl").string() + " --benchmark --runs 3 --warmups 1 --out " +
           (dir / out).string() + " --cache-dir " + (dir / "cache").string() + " --work-dir " +
           (dir / "work").string();
  };
  auto local = sh(evaluate("local") + " -q");
  ASSERT_EQ(local.rc, 0) << local.out;
  auto remote = sh(cluster.env() + evaluate("slurm") +
                   " --executor slurm --shards 3 --slurm-poll 0.5 --gpus-per-task 0");
  ASSERT_EQ(remote.rc, 0) << remote.out;
  EXPECT_NE(remote.out.find("kjudge: slurm: shards 3 done"), std::string::npos) << remote.out;

  // Each shard timed its own passes; merged, the lines are the local run's, key for key.
  const auto want = perf_lines(dir / "local/perf.jsonl");
  const auto got = perf_lines(dir / "slurm/perf.jsonl");
  ASSERT_EQ(want.size(), 8u) << "the eight passing solutions are timed";
  ASSERT_EQ(got.size(), want.size());
  std::size_t from_shards = 0;
  for (int i = 0; i < 3; ++i)
    from_shards += perf_lines(dir / "slurm/shards" / std::to_string(i) / "perf.jsonl").size();
  EXPECT_EQ(from_shards, 8u) << "timed in the shards, not on the submitter";
  for (const auto& [k, w] : want) {
    ASSERT_TRUE(got.count(k)) << k.first << "#" << k.second;
    const json& g = got.at(k);
    std::set<std::string> wk, gk;
    for (const auto& [name, v] : w.items()) wk.insert(name);
    for (const auto& [name, v] : g.items()) gk.insert(name);
    EXPECT_EQ(gk, wk) << "the same shape: " << g.dump();
    EXPECT_EQ(g["speedup"], w["speedup"]) << k.first << "#" << k.second;
    EXPECT_EQ(g["solution_ms"], w["solution_ms"]);
    EXPECT_EQ(g["baseline_ms"], w["baseline_ms"]);
  }
  const json ls = summary_of(dir / "local"), ss = summary_of(dir / "slurm");
  EXPECT_EQ(ss["pass_at_k"], ls["pass_at_k"]);
  // The geometric mean sums logs in results order (completion order in a local run, shard
  // order merged), so it may differ in the last bits; everything else is equal as is.
  auto without_geomean = [](json p) {
    p.erase("geomean_speedup");
    for (auto& [g, v] : p["groups"].items()) v.erase("geomean_speedup");
    return p;
  };
  const json& lp = ls["performance"];
  const json& sp = ss["performance"];
  for (const char* k :
       {"solutions", "timed", "not_timed", "fast_p", "fast_p_confident", "runs", "warmups"})
    EXPECT_EQ(sp[k], lp[k]) << k;
  EXPECT_EQ(without_geomean(sp)["groups"], without_geomean(lp)["groups"]);
  EXPECT_NEAR(sp["geomean_speedup"].get<double>(), lp["geomean_speedup"].get<double>(), 1e-12);
  EXPECT_EQ(sp["timed"], 8);
  EXPECT_DOUBLE_EQ(sp["fast_p"]["1"].get<double>(), 4.0 / 12.0);
  EXPECT_TRUE(fs::exists(dir / "slurm/perf-conditions.json"));
}

// A task cancelled while it times: its correctness journal is complete but its timings are
// not, so the shard is resubmitted and the new attempt times only what is missing. The
// benchmark that Slurm's SIGTERM killed is not journaled as the solution's failure.
TEST(SlurmBenchmark, ATaskCancelledWhileTimingIsResubmittedAndTimesTheRest) {
  slurm::test::SlurmCluster cluster;
  if (!cluster.why().empty()) GTEST_SKIP() << cluster.why();
  ASSERT_TRUE(cluster.start_error().empty()) << cluster.start_error();
  testing::TempDir dir;
  // Three problems, one passing sample each whose timed run takes half a second: 4 runs a
  // side, so about 2 s per solution, one at a time (host-only).
  std::string lines;
  for (int t = 0; t < 3; ++t) {
    const std::string id = "slow/p" + std::to_string(t);
    testing::write_timed_problem(dir / "pack" / ("p" + std::to_string(t)), id, "slow");
    Solution sol{id,
                 0,
                 {{"solution.c",
                   "#include <unistd.h>\nint solve(void) { return 42; }\n"
                   "double bench_ms(void) { usleep(500000); return 5.0; }\n"}},
                 ""};
    lines += solution_to_json(sol).dump() + "\n";
  }
  testing::write_text(dir / "solutions.jsonl", lines);
  const fs::path out = dir / "slurm";
  const std::string cmd = cluster.env() + kBin + " evaluate --problems " + (dir / "pack").string() +
                          " --solutions " + (dir / "solutions.jsonl").string() +
                          " --benchmark --runs 3 --warmups 1 --out " + out.string() +
                          " --cache-dir " + (dir / "cache").string() +
                          " --executor slurm --shards 1 --slurm-poll 0.5 > " +
                          (dir / "log").string() + " 2>&1; echo $? > " + (dir / "rc").string();
  std::thread submitter([&] { sh(cmd); });
  std::string job;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline && job.empty()) {
    if (!testing::read_jsonl(out / "shards/0/perf.jsonl").empty()) {
      std::ifstream in(out / "slurm/submissions.json");
      job = json::parse(in).at("submissions").at(0).at("job").get<std::string>();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_FALSE(job.empty()) << "the shard never timed a solution";
  const auto timed_before = testing::read_jsonl(out / "shards/0/perf.jsonl").size();
  EXPECT_LT(timed_before, 3u) << "cancelled too late to test anything";
  auto c = sh(cluster.env() + "scancel " + job + "_0");
  EXPECT_EQ(c.rc, 0) << c.out;
  submitter.join();

  const std::string log = testing::read_text(dir / "log");
  EXPECT_EQ(testing::read_text(dir / "rc"), "0\n") << log;
  std::ifstream in(out / "slurm/submissions.json");
  const json subs = json::parse(in)["submissions"];
  ASSERT_GE(subs.size(), 2u) << log;
  // Every solution timed, once, in the shard's own journal and in the merged one.
  const auto shard = perf_lines(out / "shards/0/perf.jsonl");
  const auto merged = perf_lines(out / "perf.jsonl");
  EXPECT_EQ(shard.size(), 3u);
  ASSERT_EQ(merged.size(), 3u);
  for (const auto& [k, j] : merged)
    EXPECT_TRUE(j["timed"].get<bool>()) << "not the solution's failure: " << j.dump();
  const json s = summary_of(out);
  EXPECT_EQ(s["complete"], true);
  EXPECT_EQ(s["performance"]["timed"], 3);
  EXPECT_EQ(s["executor"]["resubmitted"], 1);
}

}  // namespace
}  // namespace kjudge
