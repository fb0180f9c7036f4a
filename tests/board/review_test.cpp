// Issue 9: a leaderboard hides flagged runs until an admin reviews them. Over real HTTP, with
// `kjudge serve` judging a host-only pack problem (no GPU needed): a ranked run whose solution
// the static pass flags waits off the board until an admin clears it (then it ranks) or rejects
// it (then it never does), while an unflagged one ranks at once. And on both databases: a
// database from before the review column keeps its ranking when migration 3 adds it.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>

#include "board/migrations.h"
#include "board/store.h"
#include "pg_fixture.h"
#include "serve_process.h"
#include "test_util.h"
#include "timed_problem.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::run_capture;
using testing::TempDir;

const std::string kBinary = KJUDGE_BINARY;

std::string clean(double ms) {
  return "int solve(void) { return 42; }\ndouble bench_ms(void) { return " + std::to_string(ms) +
         "; }\n";
}

// Names a /proc path (the static pass's proc_read rule): flagged on line 2, passes anyway.
std::string flagged(double ms) {
  return "int solve(void) { return 42; }\nstatic const char* where = \"/proc/self/status\";\n"
         "double bench_ms(void) { return where[0] ? " +
         std::to_string(ms) + " : 0; }\n";
}

class Review : public ::testing::Test {
 protected:
  TempDir dir;
  std::string alice, bob, admin;
  std::unique_ptr<testing::ServeProcess> server;
  int port = 0;

  void SetUp() override {
    alice = token("alice", false);
    bob = token("bob", false);
    admin = token("root", true);
    testing::write_timed_problem(dir / "pack/answer", "review/answer", "review-tests");
    server = std::make_unique<testing::ServeProcess>(
        kBinary,
        std::vector<std::string>{"--db", (dir / "board.db").string(), "--pack",
                                 "p=" + (dir / "pack").string(), "--gpu-type", "cpu",
                                 "--bench-runs", "3", "--cache-dir", (dir / "cache").string()});
    port = server->port();
    ASSERT_GT(port, 0);
    ASSERT_EQ(call("POST", "/api/v1/leaderboards", admin,
                   {{"name", "answer"}, {"problem", "pack:p#review/answer"}})
                  .first,
              201);
  }
  std::string token(const std::string& name, bool is_admin) {
    auto r = run_capture(kBinary + " users add " + name + (is_admin ? " --admin" : "") + " --db " +
                         (dir / "board.db").string());
    EXPECT_EQ(r.rc, 0) << r.out;
    return r.out.substr(0, r.out.find('\n'));
  }
  std::pair<int, json> call(const std::string& method, const std::string& path,
                            const std::string& token, const json& body = nullptr) {
    httplib::Client c("127.0.0.1", port);
    c.set_read_timeout(120, 0);
    httplib::Headers h;
    if (!token.empty()) h.emplace("Authorization", "Bearer " + token);
    httplib::Result r =
        method == "GET" ? c.Get(path, h) : c.Post(path, h, body.dump(), "application/json");
    if (!r) return {0, nullptr};
    return {r->status, json::parse(r->body, nullptr, false)};
  }
  // Submits to the board and waits until it is judged; the submission as its owner sees it.
  json submit(const std::string& token, const std::string& code) {
    auto r = call("POST", "/api/v1/leaderboards/answer/submissions", token, {{"code", code}});
    EXPECT_EQ(r.first, 202) << r.second;
    auto s = call("GET",
                  "/api/v1/submissions/" + std::to_string(r.second["id"].get<std::int64_t>()) +
                      "?wait=120",
                  token)
                 .second;
    EXPECT_EQ(s["status"], "done") << s;
    return s;
  }
  // The board's ranking as "user score" lines.
  std::vector<std::string> ranking() {
    // Held in a local: a range-for over a part of the call's temporary would outlive it.
    const json board = call("GET", "/api/v1/leaderboards/answer", bob).second;
    std::vector<std::string> out;
    for (const auto& e : board["rankings"]["cpu"])
      out.push_back(e["user"].get<std::string>() + " " +
                    std::to_string(static_cast<int>(e["score"].get<double>())));
    return out;
  }
  std::string page(const std::string& path, const std::string& token, int* status) {
    httplib::Client c("127.0.0.1", port);
    auto r = c.Get(path, {{"Cookie", "kjudge_token=" + token}});
    *status = r ? r->status : 0;
    return r ? r->body : "";
  }
};

// The ranked run (runs[1]) of a judged leaderboard submission.
const json& ranked(const json& sub) { return sub["runs"].at(1); }

TEST_F(Review, AFlaggedRunRanksOnlyOnceAnAdminClearsIt) {
  const json b = submit(bob, clean(20));
  ASSERT_EQ(b["runs"].size(), 2u) << b;
  EXPECT_EQ(ranked(b)["review"], "none");
  EXPECT_EQ(ranking(), std::vector<std::string>{"bob 20000"}) << "an unflagged run ranks at once";

  const json a = submit(alice, flagged(1));
  ASSERT_EQ(a["runs"].size(), 2u) << a;
  EXPECT_EQ(a["runs"][0]["review"], "none") << "only the ranked run waits";
  EXPECT_TRUE(ranked(a)["passed"].get<bool>()) << "a flag is not a verdict";
  EXPECT_EQ(ranked(a)["review"], "pending");
  // Its submitter sees why: the flags are in the run's result.
  const json& flags = ranked(a)["result"]["cheat_flags"];
  ASSERT_FALSE(flags.empty()) << a;
  EXPECT_EQ(flags[0]["check"], "proc_read");
  EXPECT_EQ(ranking(), std::vector<std::string>{"bob 20000"}) << "the pending run is hidden";
  int status = 0;
  const std::string mine =
      page("/submissions/" + std::to_string(a["id"].get<std::int64_t>()), alice, &status);
  EXPECT_EQ(status, 200);
  EXPECT_NE(mine.find("Awaiting review"), std::string::npos) << mine;
  EXPECT_NE(mine.find("proc_read"), std::string::npos) << mine;

  // Only an admin sees the list and decides.
  EXPECT_EQ(call("GET", "/api/v1/reviews", alice).first, 403);
  page("/reviews", bob, &status);
  EXPECT_EQ(status, 403);
  auto list = call("GET", "/api/v1/reviews", admin);
  ASSERT_EQ(list.first, 200);
  ASSERT_EQ(list.second["reviews"].size(), 1u) << list.second;
  const json& item = list.second["reviews"][0];
  const std::int64_t run = ranked(a)["id"].get<std::int64_t>();
  EXPECT_EQ(item["run"], run);
  EXPECT_EQ(item["user"], "alice");
  EXPECT_EQ(item["leaderboard"], "answer");
  EXPECT_EQ(item["flags"][0]["check"], "proc_read");
  EXPECT_EQ(item["flags"][0]["file"], "solution.c");
  EXPECT_EQ(item["flags"][0]["line"], 2);
  const std::string listed = page("/reviews", admin, &status);
  EXPECT_EQ(status, 200);
  EXPECT_NE(listed.find("solution.c:2"), std::string::npos) << listed;
  EXPECT_NE(listed.find("action='/reviews/" + std::to_string(run) + "'"), std::string::npos);

  const std::string path = "/api/v1/runs/" + std::to_string(run) + "/review";
  EXPECT_EQ(call("POST", path, alice, {{"decision", "clear"}}).first, 403)
      << "a submitter cannot clear their own run";
  EXPECT_EQ(call("POST", path, admin, {{"decision", "maybe"}}).first, 400);
  EXPECT_EQ(call("POST", "/api/v1/runs/999999/review", admin, {{"decision", "clear"}}).first, 404);
  EXPECT_EQ(call("POST",
                 "/api/v1/runs/" + std::to_string(ranked(b)["id"].get<std::int64_t>()) + "/review",
                 admin, {{"decision", "reject"}})
                .first,
            409)
      << "an unflagged run is not up for review";
  EXPECT_EQ(ranking(), std::vector<std::string>{"bob 20000"});

  auto cleared =
      call("POST", path, admin, {{"decision", "clear"}, {"note", "reads its own status"}});
  ASSERT_EQ(cleared.first, 200) << cleared.second;
  EXPECT_EQ(cleared.second["review"], "cleared");
  EXPECT_EQ(ranking(), (std::vector<std::string>{"alice 1000", "bob 20000"}));
  EXPECT_EQ(call("POST", path, admin, {{"decision", "reject"}}).first, 409)
      << "a decided run stays decided";
  EXPECT_TRUE(call("GET", "/api/v1/reviews", admin).second["reviews"].empty());
  const json again =
      call("GET", "/api/v1/submissions/" + std::to_string(a["id"].get<std::int64_t>()), alice)
          .second;
  EXPECT_EQ(ranked(again)["review"], "cleared");
  EXPECT_EQ(ranked(again)["review_note"], "reads its own status");
}

TEST_F(Review, ARejectedRunNeverRanks) {
  const json a = submit(alice, flagged(1));
  ASSERT_EQ(a["runs"].size(), 2u) << a;
  const std::int64_t run = ranked(a)["id"].get<std::int64_t>();
  // Through the admin's page: its form posts with the sign-in cookie.
  httplib::Client c("127.0.0.1", port);
  auto r = c.Post("/reviews/" + std::to_string(run), {{"Cookie", "kjudge_token=" + admin}},
                  "decision=reject&note=reads+%2Fproc", "application/x-www-form-urlencoded");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 303);
  r = c.Post("/reviews/" + std::to_string(run), {{"Cookie", "kjudge_token=" + bob}},
             "decision=clear", "application/x-www-form-urlencoded");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403);
  EXPECT_TRUE(ranking().empty());
  EXPECT_TRUE(call("GET", "/api/v1/reviews", admin).second["reviews"].empty());
  const json seen =
      call("GET", "/api/v1/submissions/" + std::to_string(a["id"].get<std::int64_t>()), alice)
          .second;
  EXPECT_EQ(ranked(seen)["review"], "rejected");
  EXPECT_EQ(ranked(seen)["review_note"], "reads /proc");
  EXPECT_EQ(call("POST", "/api/v1/runs/" + std::to_string(run) + "/review", admin,
                 {{"decision", "clear"}})
                .first,
            409);
  EXPECT_TRUE(ranking().empty());
}

// --- The store, on both databases -----------------------------------------------------------

using kjudge::testing::PostgresServer;

PostgresServer& postgres() {
  static PostgresServer server;
  return server;
}

class ReviewStore : public ::testing::TestWithParam<std::string> {
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
};

// A database at version 2 with a ranked run gains migration 3 at the next start: the run keeps
// its place (review none), and new flagged runs wait.
TEST_P(ReviewStore, MigrationThreeKeepsWhatWasRanked) {
  std::int64_t board_id = 0, sub = 0;
  {
    auto db = board::open_db(url);
    db->script(
        "CREATE TABLE schema_version (version INTEGER PRIMARY KEY, what TEXT NOT NULL, "
        "applied_us BIGINT NOT NULL)");
    for (int i = 0; i < 2; ++i) {
      db->script(board::schema_sql(board::migrations().at(i).sql, db->dialect()));
      db->query("INSERT INTO schema_version (version, what, applied_us) VALUES (?, 'old', 0)",
                {board::v(static_cast<std::int64_t>(i + 1))});
    }
    const auto user = db->query(
                            "INSERT INTO users (name, role, created_us) VALUES ('old', 'user', 0) "
                            "RETURNING id")
                          .at(0)
                          .integer(0);
    board_id = db->query(
                     "INSERT INTO leaderboards (name, task_dir, task_json, secret_seed, "
                     "created_us) VALUES ('b', 'va', '{}', 7, 0) RETURNING id")
                   .at(0)
                   .integer(0);
    db->query("INSERT INTO gpu_types (leaderboard_id, gpu_type) VALUES (?, 'H100')",
              {board::v(board_id)});
    const auto code =
        db->query("INSERT INTO code_files (sha256, code) VALUES ('x', 'x') RETURNING id")
            .at(0)
            .integer(0);
    sub = db->query(
                "INSERT INTO submissions (user_id, leaderboard_id, target, mode, file_name, "
                "code_id, status, created_us) VALUES (?, ?, 'task:va', 'leaderboard', 'a.cu', "
                "?, 'done', 0) RETURNING id",
                {board::v(user), board::v(board_id), board::v(code)})
              .at(0)
              .integer(0);
    db->query(
        "INSERT INTO runs (submission_id, mode, gpu_type, score, passed, started_us, "
        "ended_us, result) VALUES (?, 'leaderboard', 'H100', 5.0, 1, 0, 1, "
        "'{\"cheat_flags\": [{\"check\": \"thread\"}]}')",
        {board::v(sub)});
    EXPECT_EQ(board::schema_version(*db), 2);
  }
  board::Store s(board::open_db(url));
  EXPECT_GE(s.schema_version(), 3);
  ASSERT_EQ(s.ranking(board_id, "H100").size(), 1u)
      << "a run ranked before the review column stays ranked, flags or not";
  EXPECT_EQ(s.runs_of(sub).at(0).review, "none");
  EXPECT_TRUE(s.pending_reviews().empty());

  board::Run r;
  r.submission_id = sub;
  r.mode = "leaderboard";
  r.gpu_type = "H100";
  r.score = 1.0;
  r.passed = true;
  r.review = "pending";
  const std::int64_t id = s.add_run(r);
  EXPECT_EQ(s.ranking(board_id, "H100").at(0).score, 5.0) << "the pending run is hidden";
  EXPECT_EQ(s.score_history(board_id, "H100").size(), 1u) << "and off the chart";
  ASSERT_EQ(s.pending_reviews().size(), 1u);
  EXPECT_EQ(s.pending_reviews()[0].user, "old");
  EXPECT_EQ(s.pending_reviews()[0].leaderboard, "b");
  const std::int64_t reviewer = s.create_user("root", "admin");
  EXPECT_EQ(s.review(id + 1000, "cleared", "", reviewer), board::ReviewOutcome::no_such_run);
  EXPECT_EQ(s.review(id, "cleared", "ok", reviewer), board::ReviewOutcome::done);
  EXPECT_EQ(s.review(id, "rejected", "", reviewer), board::ReviewOutcome::not_pending);
  EXPECT_EQ(s.ranking(board_id, "H100").at(0).score, 1.0);
  EXPECT_EQ(s.score_history(board_id, "H100").size(), 2u);
  EXPECT_EQ(s.runs_of(sub).at(1).review_note, "ok");
}

INSTANTIATE_TEST_SUITE_P(Backends, ReviewStore, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace kjudge
