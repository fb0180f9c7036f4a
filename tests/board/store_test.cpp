// The service's storage on both real databases: SQLite on disk and a PostgreSQL server started
// for the tests (pg_fixture.h). Every test runs on each.
#include "board/store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

#include "board/migrations.h"
#include "pg_fixture.h"
#include "test_util.h"

namespace kjudge::board {
namespace {

using kjudge::testing::PostgresServer;
using kjudge::testing::TempDir;

PostgresServer& postgres() {
  static PostgresServer server;
  return server;
}

class StoreTest : public ::testing::TestWithParam<std::string> {
 protected:
  TempDir dir;
  std::string url;
  void SetUp() override {
    if (GetParam() == "postgresql") {
      if (!postgres().ok()) GTEST_SKIP() << postgres().why();
      url = postgres().new_database();
    } else {
      url = "sqlite:" + (dir / "board.db").string();
    }
  }
  std::unique_ptr<Store> open() { return std::make_unique<Store>(open_db(url)); }
};

TEST_P(StoreTest, MigratesOnceAndRecordsTheVersion) {
  auto s = open();
  EXPECT_EQ(s->schema_version(), static_cast<int>(migrations().size()));
  s.reset();
  auto again = open();  // a restart: nothing to apply, nothing lost
  EXPECT_EQ(again->schema_version(), static_cast<int>(migrations().size()));
  EXPECT_STREQ(again->dialect(), GetParam().c_str());
}

TEST_P(StoreTest, TokensAreKeptOnlyAsHashes) {
  auto s = open();
  auto alice = s->create_user("alice", "user");
  std::string token = s->issue_token(alice, "laptop");
  EXPECT_EQ(token.rfind("kj_", 0), 0u);
  auto u = s->user_by_token(token);
  ASSERT_TRUE(u);
  EXPECT_EQ(u->name, "alice");
  EXPECT_FALSE(s->user_by_token(token + "x"));
  EXPECT_FALSE(s->user_by_token(""));
  // The database holds no token in clear.
  auto db = open_db(url);
  for (const auto& r : db->query("SELECT token_sha256 FROM tokens")) EXPECT_NE(r.text(0), token);
  EXPECT_THROW(s->create_user("alice", "user"), DbConflict);
  EXPECT_THROW(s->create_user("mallory", "root"), DbError) << "roles are user or admin";
}

TEST_P(StoreTest, CodeIsDeduplicatedBySha256) {
  auto s = open();
  auto a = s->put_code("__global__ void k() {}\n");
  auto b = s->put_code("__global__ void k() {}\n");
  auto c = s->put_code("__global__ void k2() {}\n");
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(s->code(c), "__global__ void k2() {}\n");
}

TEST_P(StoreTest, IdempotentSubmissionsAndPriorities) {
  auto s = open();
  auto u = s->create_user("rl-trainer", "user");
  NewSubmission bulk{u, std::nullopt, "task:vectoradd", "test", "s.cu", "A", std::string("k1"), 0};
  bool created = false;
  auto first = s->submit(bulk, &created);
  EXPECT_TRUE(created);
  EXPECT_EQ(s->submit(bulk, &created), first) << "the same key gives the same submission";
  EXPECT_FALSE(created);
  EXPECT_EQ(s->queued(), 1);
  NewSubmission bulk2 = bulk;
  bulk2.idempotency_key = "k2";
  auto second = s->submit(bulk2);
  NewSubmission interactive = bulk;
  interactive.idempotency_key.reset();
  interactive.priority = 10;
  auto urgent = s->submit(interactive);
  // Interactive work first, then the oldest bulk work.
  EXPECT_EQ(s->claim("w1")->submission_id, urgent);
  EXPECT_EQ(s->claim("w1")->submission_id, first);
  auto j = s->claim("w2");
  ASSERT_TRUE(j);
  EXPECT_EQ(j->submission_id, second);
  EXPECT_EQ(j->attempts, 1);
  EXPECT_FALSE(s->claim("w1"));
  EXPECT_EQ(s->submission(second)->status, "running");
  s->finish(j->id, true);
  // Another user may reuse the key.
  auto bob = s->create_user("bob", "user");
  NewSubmission theirs = bulk;
  theirs.user_id = bob;
  EXPECT_NE(s->submit(theirs), first);
}

TEST_P(StoreTest, QueuedWorkSurvivesARestart) {
  auto u = [&] {
    auto s = open();
    auto id = s->create_user("u", "user");
    for (int i = 0; i < 3; ++i)
      s->submit({id, std::nullopt, "task:x", "test", "s.cu", "code" + std::to_string(i),
                 std::nullopt, 0});
    auto taken = s->claim("host-a/1");  // taken, a first stage recorded, then the service dies
    EXPECT_TRUE(taken);
    if (!taken) return id;
    kjudge::board::Run r;
    r.submission_id = taken->submission_id;
    r.mode = "test";
    r.passed = true;
    s->add_run(r);
    return id;
  }();
  auto s = open();
  EXPECT_EQ(s->queued(), 2);
  EXPECT_EQ(s->requeue_running("host-a/"), 1);
  EXPECT_EQ(s->queued(), 3);
  auto j = s->claim("host-a/1");
  ASSERT_TRUE(j);
  EXPECT_EQ(j->attempts, 2) << "the interrupted job comes first, and says it is a retry";
  EXPECT_TRUE(s->runs_of(j->submission_id).empty())
      << "judged again from the start: the cut-off attempt's runs are gone";
  EXPECT_EQ(s->submissions_of(u, std::nullopt).size(), 3u);
}

TEST_P(StoreTest, ConcurrentClaimersNeverShareAJob) {
  {
    auto s = open();
    auto u = s->create_user("u", "user");
    for (int i = 0; i < 60; ++i)
      s->submit({u, std::nullopt, "task:x", "test", "s.cu", "c" + std::to_string(i), std::nullopt,
                 i % 3});
  }
  std::mutex mu;
  std::multiset<std::int64_t> got;
  std::vector<std::thread> ts;
  for (int w = 0; w < 4; ++w)
    ts.emplace_back([&, w] {
      auto s = open();  // a connection per worker, as separate instances have
      while (auto j = s->claim("w" + std::to_string(w))) {
        std::lock_guard<std::mutex> lock(mu);
        got.insert(j->id);
      }
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(got.size(), 60u);
  EXPECT_EQ(std::set<std::int64_t>(got.begin(), got.end()).size(), 60u) << "a job taken twice";
}

// A worker without a usable GPU claims around task jobs (board/task_gpu.h), and puts back one
// whose run the machine failed: queued again, its runs gone.
TEST_P(StoreTest, AWorkerWithoutAGpuClaimsAroundTasksAndRequeuesOne) {
  auto s = open();
  auto u = s->create_user("u", "user");
  const auto task = s->submit({u, std::nullopt, "task:x", "test", "s.cu", "t", std::nullopt, 9});
  const auto pack =
      s->submit({u, std::nullopt, "pack:p#CUDA/1", "judge", "s.cu", "p", std::nullopt, 0});
  auto j = s->claim("cpu/0", /*with_tasks=*/false);
  ASSERT_TRUE(j);
  EXPECT_EQ(j->submission_id, pack) << "the task comes first by priority, and is passed over";
  EXPECT_FALSE(s->claim("cpu/1", false));
  auto t = s->claim("gpu/0");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->submission_id, task);
  board::Run r;
  r.submission_id = task;
  r.mode = "test";
  s->add_run(r);
  EXPECT_TRUE(s->requeue(t->id));
  EXPECT_FALSE(s->requeue(t->id)) << "no longer running";
  EXPECT_EQ(s->submission(task)->status, "queued");
  EXPECT_TRUE(s->runs_of(task).empty());
  EXPECT_EQ(s->submission(pack)->status, "running") << "another job is untouched";
  auto again = s->claim("gpu/1");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->id, t->id);
  EXPECT_EQ(again->attempts, 2);
}

// A worker whose Python cannot run them (board/service_python.h) claims around KernelBench jobs
// and its Python tasks' jobs, named exactly: `_` in a task's name is no wildcard.
TEST_P(StoreTest, AWorkerClaimsAroundTheTargetsItRefuses) {
  auto s = open();
  auto u = s->create_user("u", "user");
  const auto py = s->submit({u, std::nullopt, "task:add_py", "test", "s.py", "a", std::nullopt, 9});
  const auto kb =
      s->submit({u, std::nullopt, "kernelbench:kb#L1/1", "judge", "m.py", "k", std::nullopt, 8});
  const auto look_alike =
      s->submit({u, std::nullopt, "task:addXpy", "test", "s.cu", "c", std::nullopt, 7});
  const std::vector<std::string> refused = {"kernelbench:%",
                                            "task:" + board::like_literal("add_py")};
  auto j = s->claim("w/0", true, refused);
  ASSERT_TRUE(j);
  EXPECT_EQ(j->submission_id, look_alike);
  EXPECT_FALSE(s->claim("w/1", true, refused));
  EXPECT_EQ(s->submission(py)->status, "queued");
  EXPECT_EQ(s->submission(kb)->status, "queued");
  EXPECT_EQ(s->claim("w/2")->submission_id, py) << "a worker that refuses nothing takes them";
}

// Issue 32: a user's stored code is bounded; refused code is not kept; admins are exempt.
TEST_P(StoreTest, AStorageQuotaPerUser) {
  auto s = open();
  s->set_storage_quota(1000);
  auto u = s->create_user("u", "user");
  auto root = s->create_user("root", "admin");
  const std::string big(600, 'a');
  s->submit({u, std::nullopt, "task:x", "test", "s.cu", big, std::nullopt, 0});
  try {
    s->submit({u, std::nullopt, "task:x", "test", "s.cu", std::string(500, 'b'), std::nullopt, 0});
    ADD_FAILURE() << "over the quota";
  } catch (const OverLimit& e) {
    EXPECT_EQ(e.limit(), 1000);
    EXPECT_NE(std::string(e.what()).find("600 used"), std::string::npos) << e.what();
  }
  EXPECT_EQ(s->submissions_of(u, std::nullopt).size(), 1u);
  // The refused text was never stored: storing it now makes a new code row.
  s->submit({root, std::nullopt, "task:x", "test", "s.cu", std::string(500, 'b'), std::nullopt, 0});
  // Up to the quota exactly; the same text again counts again (each submission is charged).
  s->submit({u, std::nullopt, "task:x", "test", "s.cu", std::string(400, 'c'), std::nullopt, 0});
  EXPECT_THROW(s->submit({u, std::nullopt, "task:x", "test", "s.cu", "x", std::nullopt, 0}),
               OverLimit);
  for (int i = 0; i < 3; ++i)
    s->submit({root, std::nullopt, "task:x", "test", "s.cu", big, std::nullopt, 0});
  s->set_storage_quota(0);
  s->submit({u, std::nullopt, "task:x", "test", "s.cu", big, std::nullopt, 0});
}

TEST_P(StoreTest, LeaderboardsAndRankingPerGpu) {
  auto s = open();
  auto admin = s->create_user("admin", "admin");
  Leaderboard b;
  b.name = "vectoradd";
  b.task_dir = "/tasks/vectoradd";
  b.task_json = "{}";
  b.secret_seed = 12345;
  b.gpu_types = {"H100", "A100"};
  auto id = s->create_leaderboard(b, admin);
  EXPECT_THROW(s->create_leaderboard(b, admin), DbConflict);
  auto got = s->leaderboard("vectoradd");
  ASSERT_TRUE(got);
  EXPECT_EQ(got->secret_seed, 12345);
  EXPECT_EQ(got->gpu_types, (std::vector<std::string>{"A100", "H100"}));
  EXPECT_EQ(s->leaderboards().size(), 1u);

  auto alice = s->create_user("alice", "user"), bob = s->create_user("bob", "user");
  auto run = [&](std::int64_t user, double score, bool passed, bool secret,
                 const std::string& gpu) {
    auto sub =
        s->submit({user, id, "task:vectoradd", "leaderboard", "s.cu",
                   "c" + std::to_string(score) + gpu + (secret ? "s" : ""), std::nullopt, 0});
    board::Run r;
    r.submission_id = sub;
    r.mode = "leaderboard";
    r.score = score;
    r.passed = passed;
    r.secret = secret;
    r.gpu_type = gpu;
    r.started_us = r.ended_us = now_us();
    s->add_run(r);
    return sub;
  };
  run(alice, 120, true, false, "H100");
  auto alice_best = run(alice, 95, true, false, "H100");
  run(bob, 100, true, false, "H100");
  run(bob, 50, false, false, "H100");  // failed: not ranked
  run(bob, 40, true, true, "H100");    // secret run: not shown
  run(bob, 10, true, false, "A100");   // another GPU
  auto h100 = s->ranking(id, "H100");
  ASSERT_EQ(h100.size(), 2u);
  EXPECT_EQ(h100[0].user, "alice");
  EXPECT_EQ(h100[0].score, 95);
  EXPECT_EQ(h100[0].submission_id, alice_best);
  EXPECT_EQ(h100[1].user, "bob");
  EXPECT_EQ(h100[1].rank, 2);
  ASSERT_EQ(s->ranking(id, "A100").size(), 1u);
  EXPECT_EQ(s->runs_of(alice_best).at(0).score, 95);
  EXPECT_TRUE(s->delete_leaderboard("vectoradd"));
  EXPECT_FALSE(s->leaderboard("vectoradd"));
  EXPECT_TRUE(s->ranking(id, "H100").empty()) << "its submissions and runs went with it";
}

// A database made by version 1 (task boards only) gains migration 2 at the next start: its
// boards keep working as task boards, and pack boards keep their problem.
TEST_P(StoreTest, MigrationTwoAddsPackBoardsToAVersionOneDatabase) {
  {
    auto db = open_db(url);
    db->script(
        "CREATE TABLE schema_version (version INTEGER PRIMARY KEY, what TEXT NOT NULL, "
        "applied_us BIGINT NOT NULL)");
    db->script(schema_sql(migrations().at(0).sql, db->dialect()));
    db->query("INSERT INTO schema_version (version, what, applied_us) VALUES (1, 'v1', 0)");
    db->query(
        "INSERT INTO leaderboards (name, task_dir, task_json, secret_seed, created_us) "
        "VALUES ('old', '/tasks/va', '{}', 7, 0)");
    EXPECT_EQ(schema_version(*db), 1);
  }
  auto s = open();
  EXPECT_EQ(s->schema_version(), static_cast<int>(migrations().size()));
  auto old = s->leaderboard("old");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->task_dir, "/tasks/va");
  EXPECT_EQ(old->target, "") << "a version-1 board is a task board";

  Leaderboard b;
  b.name = "saxpy";
  b.task_json = "{}";
  b.target = "pack:example#example/saxpy";
  s->create_leaderboard(b, s->create_user("admin", "admin"));
  auto got = s->leaderboard("saxpy");
  ASSERT_TRUE(got);
  EXPECT_EQ(got->target, "pack:example#example/saxpy");
  EXPECT_EQ(s->leaderboards().size(), 2u);
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace kjudge::board
