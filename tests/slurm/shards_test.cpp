// The cut of a run into shards (slurm/shards.h): every job in exactly one shard, balanced by
// expected cost, and the same cut whatever the order of the jobs.
#include "slurm/shards.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <stdexcept>

namespace kjudge::slurm {
namespace {

std::vector<ShardJob> jobs_with_costs(const std::vector<double>& costs) {
  std::vector<ShardJob> jobs;
  for (std::size_t i = 0; i < costs.size(); ++i)
    jobs.push_back({"t/" + std::to_string(100 + i), 0, costs[i]});
  return jobs;
}

// Every job in exactly one shard, no shard empty, sums right.
void expect_partition(const std::vector<ShardJob>& jobs, const std::vector<Shard>& shards) {
  std::multiset<std::size_t> seen;
  for (const auto& s : shards) {
    EXPECT_FALSE(s.jobs.empty());
    EXPECT_TRUE(std::is_sorted(s.jobs.begin(), s.jobs.end()));
    double sum = 0;
    for (auto j : s.jobs) {
      seen.insert(j);
      sum += std::max(0.0, jobs[j].expected_s);
    }
    EXPECT_DOUBLE_EQ(sum, s.expected_s);
  }
  ASSERT_EQ(seen.size(), jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) EXPECT_EQ(seen.count(i), 1u) << i;
}

TEST(Shards, LptBalancesTheClassicExample) {
  // LPT on {7,6,5,4,3,2} over 3 shards: 7+2, 6+3, 5+4 = 9 each, a perfect cut; round-robin
  // in input order would give 7+4, 6+3, 5+2 = 11/9/7.
  auto jobs = jobs_with_costs({7, 6, 5, 4, 3, 2});
  auto shards = make_shards(jobs, 3);
  ASSERT_EQ(shards.size(), 3u);
  expect_partition(jobs, shards);
  for (const auto& s : shards) EXPECT_DOUBLE_EQ(s.expected_s, 9.0);
  EXPECT_DOUBLE_EQ(shard_imbalance(shards), 1.0);
}

TEST(Shards, OneHugeJobGetsAShardOfItsOwn) {
  auto jobs = jobs_with_costs({1, 1, 100, 1, 1, 1});
  auto shards = make_shards(jobs, 2);
  ASSERT_EQ(shards.size(), 2u);
  expect_partition(jobs, shards);
  int alone = 0;
  for (const auto& s : shards)
    if (s.jobs == std::vector<std::size_t>{2}) ++alone;
  EXPECT_EQ(alone, 1);
}

TEST(Shards, NeverMoreShardsThanJobsAndNoneEmpty) {
  auto jobs = jobs_with_costs({0, 0, 0});
  auto shards = make_shards(jobs, 8);
  ASSERT_EQ(shards.size(), 3u);
  expect_partition(jobs, shards);
  EXPECT_TRUE(make_shards({}, 4).empty());
}

TEST(Shards, ZeroCostJobsAreSpreadNotPiledOnShardZero) {
  // With no history every expectation may be 0; the cut must still use all shards evenly.
  auto jobs = jobs_with_costs(std::vector<double>(10, 0.0));
  auto shards = make_shards(jobs, 3);
  ASSERT_EQ(shards.size(), 3u);
  expect_partition(jobs, shards);
  std::vector<std::size_t> sizes;
  for (const auto& s : shards) sizes.push_back(s.jobs.size());
  std::sort(sizes.begin(), sizes.end());
  EXPECT_EQ(sizes, (std::vector<std::size_t>{3, 3, 4}));
}

TEST(Shards, NegativeAndNanCostsCountAsZero) {
  auto jobs = jobs_with_costs({-5, std::nan(""), 3});
  auto shards = make_shards(jobs, 1);
  ASSERT_EQ(shards.size(), 1u);
  EXPECT_DOUBLE_EQ(shards[0].expected_s, 3.0);
}

TEST(Shards, SameCutForAnyInputOrder) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> cost(0, 50);
  std::vector<ShardJob> jobs;
  for (int t = 0; t < 20; ++t)
    for (int s = 0; s < 3; ++s)
      // Integral costs make ties common, which is where input order could leak in.
      jobs.push_back({"p/" + std::to_string(t), s, std::floor(cost(rng) / 10) * 10});
  auto as_keys = [](const std::vector<ShardJob>& js, const std::vector<Shard>& shards) {
    std::vector<std::set<std::pair<std::string, int>>> out;
    for (const auto& sh : shards) {
      std::set<std::pair<std::string, int>> keys;
      for (auto j : sh.jobs) keys.insert({js[j].task_id, js[j].sample});
      out.push_back(keys);
    }
    return out;
  };
  const auto reference = as_keys(jobs, make_shards(jobs, 7));
  expect_partition(jobs, make_shards(jobs, 7));
  for (int round = 0; round < 5; ++round) {
    auto shuffled = jobs;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    EXPECT_EQ(as_keys(shuffled, make_shards(shuffled, 7)), reference) << "round " << round;
  }
}

TEST(Shards, LptStaysWithinFourThirdsOfTheLowerBound) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> cost(1, 100);
  for (int round = 0; round < 20; ++round) {
    auto jobs = jobs_with_costs({});
    double total = 0, biggest = 0;
    for (int i = 0; i < 200; ++i) {
      double c = cost(rng);
      jobs.push_back({"r/" + std::to_string(i), round, c});
      total += c;
      biggest = std::max(biggest, c);
    }
    auto shards = make_shards(jobs, 9);
    expect_partition(jobs, shards);
    double worst = 0;
    for (const auto& s : shards) worst = std::max(worst, s.expected_s);
    EXPECT_LE(worst, 4.0 / 3.0 * std::max(total / 9, biggest) + 1e-9);
  }
}

TEST(Shards, RejectsZeroShardsAndDuplicateJobs) {
  EXPECT_THROW(make_shards(jobs_with_costs({1}), 0), std::invalid_argument);
  std::vector<ShardJob> dup{{"a", 0, 1}, {"b", 0, 1}, {"a", 0, 2}};
  EXPECT_THROW(make_shards(dup, 2), std::invalid_argument);
  std::vector<ShardJob> samples{{"a", 0, 1}, {"a", 1, 1}};
  EXPECT_NO_THROW(make_shards(samples, 2));
}

TEST(Shards, ShardsAreNumberedByTheirFirstKey) {
  auto jobs = jobs_with_costs({1, 9, 1, 9});
  auto shards = make_shards(jobs, 2);
  ASSERT_EQ(shards.size(), 2u);
  EXPECT_EQ(shards[0].jobs.front(), 0u);  // t/100 is the smallest key overall
}

}  // namespace
}  // namespace kjudge::slurm
