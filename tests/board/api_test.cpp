// The service over real HTTP: `kjudge serve` as a process, on SQLite, judging the example pack
// (its problems run on the host, so no GPU is needed); clients speak HTTP with cpp-httplib.
#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "board/db.h"
#include "board/store.h"
#include "pg_fixture.h"
#include "run/machine.h"
#include "schema_validator.h"
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
const fs::path kExamples = fs::path(KJUDGE_SOURCE_DIR) / "examples";

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The service with the example pack and tasks, on `db`, with its build cache beside it.
class Server : public testing::ServeProcess {
 public:
  Server(const fs::path& db, const std::vector<std::string>& extra)
      : Server(db.string(), extra, db.parent_path()) {}
  Server(const std::string& db, const std::vector<std::string>& extra, const fs::path& cache_parent)
      : ServeProcess(kBinary, args(db, extra, cache_parent)) {}

 private:
  static std::vector<std::string> args(const std::string& db, const std::vector<std::string>& extra,
                                       const fs::path& cache_parent) {
    std::vector<std::string> a = {"--db",        db,
                                  "--pack",      "example=" + (kExamples / "pack").string(),
                                  "--tasks",     (kExamples / "tasks").string(),
                                  "--cache-dir", (cache_parent / "kjudge-api-cache").string()};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
};

class Api : public ::testing::Test {
 protected:
  TempDir dir;
  std::string alice, bob, admin;
  void SetUp() override {
    const std::string db = (dir / "board.db").string();
    alice = token("alice", false);
    bob = token("bob", false);
    admin = token("root", true);
  }
  std::string token(const std::string& name, bool is_admin) {
    auto r = run_capture(kBinary + " users add " + name + (is_admin ? " --admin" : "") + " --db " +
                         (dir / "board.db").string());
    EXPECT_EQ(r.rc, 0) << r.out;
    return r.out.substr(0, r.out.find('\n'));
  }
  static std::pair<int, json> call(int port, const std::string& method, const std::string& path,
                                   const std::string& token, const json& body = nullptr) {
    httplib::Client c("127.0.0.1", port);
    c.set_read_timeout(120, 0);
    httplib::Headers h;
    if (!token.empty()) h.emplace("Authorization", "Bearer " + token);
    httplib::Result r = method == "GET"      ? c.Get(path, h)
                        : method == "DELETE" ? c.Delete(path, h)
                                             : c.Post(path, h, body.dump(), "application/json");
    if (!r) return {0, nullptr};
    return {r->status, json::parse(r->body, nullptr, false)};
  }
  json saxpy(const std::string& solution, const std::string& key = "") {
    json b = {
        {"target", "pack:example#example/saxpy"},
        {"files", {{"solution.cu", read(kExamples / "solutions" / solution / "solution.cu")}}}};
    if (!key.empty()) b["idempotency_key"] = key;
    return b;
  }
};

TEST_F(Api, HealthIsOpenEverythingElseNeedsAToken) {
  Server s(dir / "board.db", {});
  ASSERT_GT(s.port(), 0);
  auto [st, health] = call(s.port(), "GET", "/api/v1/health", "");
  EXPECT_EQ(st, 200);
  EXPECT_EQ(health["database"], "sqlite");
  // A judging instance says whether it takes task jobs; on a machine with no GPU (CI) it does
  // not, and says why, once its worker has asked (at its start).
  if (probe_machine().gpus.empty()) {
    for (int i = 0; i < 100 && !health["tasks_refused"].is_string(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      health = call(s.port(), "GET", "/api/v1/health", "").second;
    }
    ASSERT_TRUE(health["tasks_refused"].is_string()) << health;
    EXPECT_NE(health["tasks_refused"].get<std::string>().find("no GPU"), std::string::npos);
  }
  EXPECT_EQ(call(s.port(), "GET", "/api/v1/submissions", "").first, 401);
  EXPECT_EQ(call(s.port(), "GET", "/api/v1/submissions", "kj_not_a_token").first, 401);
  EXPECT_EQ(
      call(s.port(), "POST", "/api/v1/submissions", alice + "x", saxpy("pass-saxpy-functor")).first,
      401);
  EXPECT_EQ(s.stop(), 0) << "SIGTERM stops the service cleanly";
}

TEST_F(Api, JudgesSubmissionsAndBatchesOverHttp) {
  Server s(dir / "board.db", {});
  auto [st, r] =
      call(s.port(), "POST", "/api/v1/submissions", alice, saxpy("pass-saxpy-functor", "k1"));
  ASSERT_EQ(st, 202) << r;
  const auto id = r["id"].get<std::int64_t>();
  auto again =
      call(s.port(), "POST", "/api/v1/submissions", alice, saxpy("pass-saxpy-functor", "k1"));
  EXPECT_EQ(again.first, 200);
  EXPECT_EQ(again.second["id"], id) << "an idempotency key seen before returns the same submission";
  EXPECT_FALSE(again.second["created"].get<bool>());

  auto batch = call(s.port(), "POST", "/api/v1/submissions", alice,
                    {{"items",
                      {saxpy("fail-saxpy-wrong-sign"),
                       saxpy("crash-saxpy-null-write"),
                       {{"target", "pack:example#nope"}, {"files", json::object()}}}}});
  ASSERT_EQ(batch.first, 202);
  ASSERT_EQ(batch.second["items"].size(), 3u);
  EXPECT_EQ(batch.second["items"][2]["status"], 400) << "a bad item fails alone";

  auto verdict = [&](std::int64_t sid) {
    auto [code, sub] =
        call(s.port(), "GET", "/api/v1/submissions/" + std::to_string(sid) + "?wait=120", alice);
    EXPECT_EQ(code, 200);
    EXPECT_EQ(sub["status"], "done") << sub;
    return sub["runs"].at(0)["result"]["verdict"].get<std::string>();
  };
  EXPECT_EQ(verdict(id), "pass");
  EXPECT_EQ(verdict(batch.second["items"][0]["id"].get<std::int64_t>()), "test_fail");
  EXPECT_EQ(verdict(batch.second["items"][1]["id"].get<std::int64_t>()), "crash");
}

TEST_F(Api, NoSubmitterSeesAnothersWork) {
  Server s(dir / "board.db", {"--no-judge"});
  auto mine = call(s.port(), "POST", "/api/v1/submissions", alice, saxpy("pass-saxpy-functor"));
  const std::string path =
      "/api/v1/submissions/" + std::to_string(mine.second["id"].get<std::int64_t>());
  EXPECT_EQ(call(s.port(), "GET", path + "?code", alice)
                    .second["code"]
                    .get<std::string>()
                    .find("Saxpy") != std::string::npos,
            true);
  EXPECT_EQ(call(s.port(), "GET", path + "?code", bob).first, 404) << "another user's code";
  EXPECT_TRUE(call(s.port(), "GET", "/api/v1/submissions", bob).second["submissions"].empty());
  EXPECT_EQ(call(s.port(), "GET", path, admin).first, 200);
}

// `--isolate` reaches the service (docs/service.md): it starts and serves with it. What it
// does to a task run is tested where the runs are (task_run_test, the device's
// run-isolate-check.sh); the service hands it to both the build and every stage.
TEST_F(Api, ServesWithIsolatedTaskRuns) {
  Server s(dir / "board.db", {"--isolate", "--no-judge"});
  ASSERT_GT(s.port(), 0);
  EXPECT_EQ(call(s.port(), "GET", "/api/v1/health", "").first, 200);
  EXPECT_EQ(s.stop(), 0);
}

// Task submissions run isolated by default; --no-isolate runs them in one process. The service
// says which on its start-up line.
TEST_F(Api, TaskRunsAreIsolatedUnlessToldOtherwise) {
  auto start = [&](const std::string& extra) {
    return run_capture("timeout -s TERM 3 " + kBinary + " serve --port 0 --no-judge --db " +
                       (dir / "iso.db").string() + " --tasks " + (kExamples / "tasks").string() +
                       extra + " 2>&1")
        .out;
  };
  const std::string isolated = start("");
  EXPECT_NE(isolated.find("task(s) run isolated"), std::string::npos) << isolated;
  const std::string one = start(" --no-isolate");
  EXPECT_NE(one.find("task(s) run in one process"), std::string::npos) << one;
  EXPECT_NE(start(" --isolate").find("task(s) run isolated"), std::string::npos);
}

TEST_F(Api, BadRequestsSayWhy) {
  Server s(dir / "board.db", {"--no-judge"});
  httplib::Client c("127.0.0.1", s.port());
  auto r = c.Post("/api/v1/submissions", {{"Authorization", "Bearer " + alice}}, "{not json",
                  "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  auto [st, body] = call(s.port(), "POST", "/api/v1/submissions", alice,
                         {{"target", "pack:example#example/saxpy"}});
  EXPECT_EQ(st, 400);
  EXPECT_NE(body["error"].get<std::string>().find("files"), std::string::npos);
  EXPECT_EQ(
      call(s.port(), "POST", "/api/v1/submissions", alice, {{"target", "task:nope"}, {"code", ""}})
          .first,
      400);
  EXPECT_EQ(call(s.port(), "POST", "/api/v1/submissions", alice,
                 {{"target", "task:vectoradd"}, {"mode", "fastest"}, {"code", ""}})
                .first,
            400);
  EXPECT_EQ(call(s.port(), "GET", "/api/v1/submissions/999", alice).first, 404);
}

// --max-queued: a user's unfinished submissions are capped (429 past it), each batch item
// alone; an idempotent retry still answers; other users and admins are not held back.
TEST_F(Api, PerUserLimitOnUnfinishedSubmissions) {
  Server s(dir / "board.db", {"--no-judge", "--max-queued", "2"});
  auto item = [](int i) {
    return json{{"target", "task:vectoradd"},
                {"code", "// " + std::to_string(i)},
                {"idempotency_key", "k" + std::to_string(i)}};
  };
  EXPECT_EQ(call(s.port(), "POST", "/api/v1/submissions", alice, item(1)).first, 202);
  auto batch = call(s.port(), "POST", "/api/v1/submissions", alice,
                    {{"items", json::array({item(2), item(3)})}});
  ASSERT_EQ(batch.second["items"].size(), 2u) << batch.second;
  EXPECT_EQ(batch.second["items"][0]["status"], 202);
  EXPECT_EQ(batch.second["items"][1]["status"], 429);
  EXPECT_NE(batch.second["items"][1]["error"].get<std::string>().find("2 unfinished"),
            std::string::npos)
      << batch.second;
  auto again = call(s.port(), "POST", "/api/v1/submissions", alice, item(4));
  EXPECT_EQ(again.first, 429);
  EXPECT_EQ(again.second["limit"], 2);
  EXPECT_EQ(call(s.port(), "POST", "/api/v1/submissions", alice, item(1)).first, 200)
      << "a retry of an accepted submission";
  EXPECT_EQ(call(s.port(), "POST", "/api/v1/submissions", bob, item(1)).first, 202);
  for (int i = 1; i <= 3; ++i)
    EXPECT_EQ(call(s.port(), "POST", "/api/v1/submissions", admin, item(i)).first, 202);
}

TEST_F(Api, LeaderboardsNeedAnAdmin) {
  Server s(dir / "board.db", {"--no-judge", "--gpu-type", "H100"});
  json board = {{"name", "va"}, {"task", "vectoradd"}};
  EXPECT_EQ(call(s.port(), "POST", "/api/v1/leaderboards", alice, board).first, 403);
  EXPECT_EQ(call(s.port(), "POST", "/api/v1/leaderboards", admin, board).first, 201);
  EXPECT_EQ(call(s.port(), "POST", "/api/v1/leaderboards", admin, board).first, 409);
  auto [st, list] = call(s.port(), "GET", "/api/v1/leaderboards", bob);
  EXPECT_EQ(list["leaderboards"][0]["gpu_types"][0], "H100");
  auto sub = call(s.port(), "POST", "/api/v1/leaderboards/va/submissions", bob,
                  {{"code", read(kExamples / "tasks/vectoradd/submissions/fast.cu")}});
  EXPECT_EQ(sub.first, 202) << sub.second;
  auto mine = call(s.port(), "GET", "/api/v1/submissions?leaderboard=va", bob);
  ASSERT_EQ(mine.second["submissions"].size(), 1u);
  EXPECT_EQ(mine.second["submissions"][0]["mode"], "leaderboard");
  EXPECT_EQ(mine.second["submissions"][0]["target"], "task:vectoradd");
  EXPECT_TRUE(
      call(s.port(), "GET", "/api/v1/leaderboards/va", bob).second["rankings"]["H100"].empty());
  EXPECT_EQ(call(s.port(), "DELETE", "/api/v1/leaderboards/va", bob).first, 403);
  EXPECT_EQ(call(s.port(), "DELETE", "/api/v1/leaderboards/va", admin).first, 200);
  EXPECT_EQ(call(s.port(), "GET", "/api/v1/leaderboards/va", bob).first, 404);
}

TEST_F(Api, QueuedWorkSurvivesARestart) {
  std::vector<std::int64_t> ids;
  {
    Server front(dir / "board.db", {"--no-judge"});  // accepts, judges nothing
    for (const char* sol : {"pass-saxpy-functor", "fail-saxpy-wrong-sign"})
      ids.push_back(
          call(front.port(), "POST", "/api/v1/submissions", alice, saxpy(sol)).second["id"]);
    EXPECT_EQ(call(front.port(), "GET", "/api/v1/health", "").second["queued"], 2);
  }  // stopped with both still queued
  Server s(dir / "board.db", {});
  std::vector<std::string> verdicts;
  for (auto id : ids) {
    auto sub =
        call(s.port(), "GET", "/api/v1/submissions/" + std::to_string(id) + "?wait=120", alice)
            .second;
    ASSERT_EQ(sub["status"], "done") << sub;
    verdicts.push_back(sub["runs"][0]["result"]["verdict"]);
  }
  EXPECT_EQ(verdicts, (std::vector<std::string>{"pass", "test_fail"}));
}

TEST_F(Api, SubmitCommandSendsAndWaits) {
  Server s(dir / "board.db", {});
  const std::string base = kBinary +
                           " submit --server http://127.0.0.1:" + std::to_string(s.port()) +
                           " --target pack:example#example/saxpy --wait 120 ";
  auto ok = run_capture(base + "--token " + alice + " " +
                        (kExamples / "solutions/pass-saxpy-functor/solution.cu").string());
  EXPECT_EQ(ok.rc, 0) << ok.out;
  EXPECT_NE(ok.out.find("judge: passed - pass"), std::string::npos) << ok.out;
  auto bad = run_capture("KJUDGE_TOKEN=" + bob + " " + base +
                         (kExamples / "solutions/fail-saxpy-wrong-sign/solution.cu").string());
  EXPECT_EQ(bad.rc, 1) << "a failed verdict: " << bad.out;
  EXPECT_NE(bad.out.find("test_fail"), std::string::npos) << bad.out;
  // And why: the verdict's detail and the test's own last lines (issue 38).
  EXPECT_NE(bad.out.find("    why: test exited with code"), std::string::npos) << bad.out;
  EXPECT_NE(bad.out.find("    test log"), std::string::npos) << bad.out;
  // --json prints the submission as the API gives it, versioned and as its schema says.
  auto as_json = run_capture(base + "--json --token " + alice + " " +
                             (kExamples / "solutions/pass-saxpy-functor/solution.cu").string() +
                             " 2>/dev/null");
  EXPECT_EQ(as_json.rc, 0) << as_json.out;
  json sub = json::parse(as_json.out, nullptr, false);
  ASSERT_TRUE(sub.is_object()) << as_json.out;
  EXPECT_EQ(sub["schema_version"], 1);
  EXPECT_EQ(sub["kind"], "kjudge-submission");
  testing::SchemaValidator v(
      json::parse(read(fs::path(KJUDGE_SOURCE_DIR) / "docs/schemas/submission.schema.json")));
  for (const auto& e : v.errors(sub)) ADD_FAILURE() << e;
  auto denied = run_capture(base + "--token kj_nope " +
                            (kExamples / "solutions/pass-saxpy-functor/solution.cu").string());
  EXPECT_EQ(denied.rc, 2) << denied.out;
  EXPECT_NE(denied.out.find("HTTP 401"), std::string::npos) << denied.out;
}

// The web page over HTTP: sign-in by cookie, the submit form, the ranking and its chart data,
// Chart.js served locally, everything escaped. (Headless Chromium drives it in a later test.)
TEST_F(Api, WebPageShowsBoardsAndTakesSubmissions) {
  Server s(dir / "board.db", {"--no-judge", "--gpu-type", "H100"});
  ASSERT_EQ(call(s.port(), "POST", "/api/v1/leaderboards", admin,
                 {{"name", "va"},
                  {"task", "vectoradd"},
                  {"description", "<script>alert(1)</script> adds"}})
                .first,
            201);
  httplib::Client c("127.0.0.1", s.port());
  auto index = c.Get("/");
  ASSERT_TRUE(index);
  EXPECT_NE(index->body.find("href='/leaderboards/va'"), std::string::npos) << index->body;
  EXPECT_EQ(index->body.find("<script>alert(1)"), std::string::npos) << "user text is escaped";
  EXPECT_NE(index->body.find("&lt;script&gt;alert(1)"), std::string::npos);

  EXPECT_EQ(c.Post("/login", "token=kj_wrong", "application/x-www-form-urlencoded")->status, 401);
  auto login = c.Post("/login", "token=" + bob, "application/x-www-form-urlencoded");
  ASSERT_EQ(login->status, 303);
  const std::string cookie = login->get_header_value("Set-Cookie");
  EXPECT_NE(cookie.find("HttpOnly"), std::string::npos);
  EXPECT_NE(cookie.find("SameSite=Strict"), std::string::npos);
  httplib::Headers as_bob = {{"Cookie", cookie.substr(0, cookie.find(';'))}};

  auto sent = c.Post("/leaderboards/va/submit", as_bob,
                     "mode=leaderboard&code=__global__%20void%20k()%7B%7D",
                     "application/x-www-form-urlencoded");
  ASSERT_EQ(sent->status, 303);
  const std::string where = sent->get_header_value("Location");
  ASSERT_EQ(where.rfind("/submissions/", 0), 0u) << where;
  auto page = c.Get(where, as_bob);
  EXPECT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("class=status>queued"), std::string::npos) << page->body;
  EXPECT_EQ(c.Get(where)->status, 404) << "not signed in";
  auto login_alice = c.Post("/login", "token=" + alice, "application/x-www-form-urlencoded");
  const std::string alice_cookie = login_alice->get_header_value("Set-Cookie");
  EXPECT_EQ(c.Get(where, {{"Cookie", alice_cookie.substr(0, alice_cookie.find(';'))}})->status, 404)
      << "another user's submission";

  // A ranked run, as a GPU worker would record it: the board page ranks it.
  {
    board::Store store(board::open_db((dir / "board.db").string()));
    board::Run r;
    r.submission_id = std::stoll(where.substr(13));
    r.mode = "leaderboard";
    r.gpu_type = "H100";
    r.passed = true;
    r.score = 93.75;
    r.started_us = r.ended_us = board::now_us();
    store.add_run(r);
  }
  auto b = c.Get("/leaderboards/va", as_bob);
  EXPECT_NE(b->body.find("<tr class=me><td>1</td><td>bob</td><td>93.75</td>"), std::string::npos)
      << b->body;
  EXPECT_NE(b->body.find("Your best: 93.75 µs, rank 1."), std::string::npos);
  EXPECT_NE(b->body.find("<script src=/static/chart.min.js>"), std::string::npos);
  // The chart's data is an attribute of its canvas (no inline script: the CSP allows none).
  EXPECT_NE(b->body.find("data-points='[{&quot;x&quot;:"), std::string::npos) << b->body;
  EXPECT_NE(b->body.find("&quot;y&quot;:93.75"), std::string::npos) << "the chart's data";
  EXPECT_EQ(b->body.find("<script>"), std::string::npos) << "no inline script";
  auto js = c.Get("/static/chart.min.js");
  if (fs::exists("/usr/share/javascript/chart.js")) {
    EXPECT_EQ(js->status, 200);
    EXPECT_GT(js->body.size(), 10000u);
  }

  // Real kernels are longer than cpp-httplib's default cap on form bodies (8 KiB), and the form
  // and `curl -d` both send form-encoded bodies.
  const std::string kernel(40000, 'x');
  auto big = c.Post("/leaderboards/va/submit", as_bob, "mode=test&code=" + kernel,
                    "application/x-www-form-urlencoded");
  EXPECT_EQ(big->status, 303);
  auto big_json =
      c.Post("/api/v1/leaderboards/va/submissions", {{"Authorization", "Bearer " + bob}},
             json{{"code", kernel}, {"mode", "test"}}.dump(), "application/x-www-form-urlencoded");
  EXPECT_EQ(big_json->status, 202) << big_json->body;
}

// A secret ranked run says whether it passed; its details go to admins only.
TEST_F(Api, SecretRunsShowOnlyWhetherTheyPassed) {
  Server s(dir / "board.db", {"--no-judge", "--gpu-type", "H100"});
  ASSERT_EQ(
      call(s.port(), "POST", "/api/v1/leaderboards", admin, {{"name", "va"}, {"task", "vectoradd"}})
          .first,
      201);
  auto sub = call(s.port(), "POST", "/api/v1/leaderboards/va/submissions", bob, {{"code", "// k"}});
  const auto id = sub.second["id"].get<std::int64_t>();
  {
    board::Store store(board::open_db((dir / "board.db").string()));
    for (bool secret : {false, true}) {
      board::Run r;
      r.submission_id = id;
      r.mode = "leaderboard";
      r.secret = secret;
      r.gpu_type = "H100";
      r.passed = true;
      r.score = secret ? 90.0 : 95.0;
      r.result = json({{"log", secret ? "seed 123456 inputs" : "public log"}}).dump();
      r.started_us = r.ended_us = board::now_us();
      store.add_run(r);
    }
  }
  const std::string path = "/api/v1/submissions/" + std::to_string(id);
  auto mine = call(s.port(), "GET", path, bob).second;
  ASSERT_EQ(mine["runs"].size(), 2u);
  EXPECT_EQ(mine["runs"][0]["result"]["log"], "public log");
  EXPECT_TRUE(mine["runs"][1]["secret"].get<bool>());
  EXPECT_TRUE(mine["runs"][1]["passed"].get<bool>());
  EXPECT_FALSE(mine["runs"][1].contains("result")) << "the submitter sees no secret-run detail";
  EXPECT_EQ(mine.dump().find("seed 123456"), std::string::npos);
  auto as_admin = call(s.port(), "GET", path, admin).second;
  EXPECT_EQ(as_admin["runs"][1]["result"]["log"], "seed 123456 inputs");
  // The public ranking holds the public run's score only.
  auto board = call(s.port(), "GET", "/api/v1/leaderboards/va", bob).second;
  ASSERT_EQ(board["rankings"]["H100"].size(), 1u);
  EXPECT_EQ(board["rankings"]["H100"][0]["score"], 95.0);
}

std::string timed_solution(int answer, double ms) {
  return "int solve(void) { return " + std::to_string(answer) +
         "; }\ndouble bench_ms(void) { return " + std::to_string(ms) + "; }\n";
}

// A board over a pack problem: judged on the host, its ranked run timed by the benchmark stage
// against the baseline and scored by the solution's median in microseconds.
TEST_F(Api, PackBoardsRankByTheBenchmarkMedian) {
  testing::write_timed_problem(dir / "timed-pack/answer", "board/answer", "board-tests");
  Server s(dir / "board.db", {"--pack", "timed=" + (dir / "timed-pack").string(), "--gpu-type",
                              "cpu", "--bench-runs", "3"});
  ASSERT_GT(s.port(), 0);
  const json board = {{"name", "answer"}, {"problem", "pack:timed#board/answer"}};
  EXPECT_EQ(call(s.port(), "POST", "/api/v1/leaderboards", alice, board).first, 403);
  auto unknown = call(s.port(), "POST", "/api/v1/leaderboards", admin,
                      {{"name", "x"}, {"problem", "pack:timed#board/nope"}});
  EXPECT_EQ(unknown.first, 400);
  EXPECT_NE(unknown.second["error"].get<std::string>().find("board/nope"), std::string::npos)
      << unknown.second;
  auto not_pack = call(s.port(), "POST", "/api/v1/leaderboards", admin,
                       {{"name", "x"}, {"problem", "task:vectoradd"}});
  EXPECT_EQ(not_pack.first, 400);
  EXPECT_NE(not_pack.second["error"].get<std::string>().find("problem"), std::string::npos);
  ASSERT_EQ(call(s.port(), "POST", "/api/v1/leaderboards", admin, board).first, 201);
  EXPECT_EQ(call(s.port(), "GET", "/api/v1/leaderboards/answer", bob).second["problem"],
            "pack:timed#board/answer");

  const std::string path = "/api/v1/leaderboards/answer/submissions";
  EXPECT_EQ(call(s.port(), "POST", path, bob, {{"code", "x"}, {"mode", "benchmark"}}).first, 400)
      << "a pack board's modes are test and leaderboard";
  auto slow = call(s.port(), "POST", path, alice, {{"code", timed_solution(42, 20)}});
  ASSERT_EQ(slow.first, 202) << slow.second;
  auto wrong = call(s.port(), "POST", path, bob, {{"code", timed_solution(41, 1)}});
  ASSERT_EQ(wrong.first, 202) << wrong.second;
  auto wait = [&](const json& r, const std::string& token) {
    return call(s.port(), "GET",
                "/api/v1/submissions/" + std::to_string(r["id"].get<std::int64_t>()) +
                    "?wait=120&code",
                token)
        .second;
  };
  const json a = wait(slow.second, alice);
  ASSERT_EQ(a["status"], "done") << a;
  EXPECT_EQ(a["file_name"], "solution.c") << "the code box is the problem's solution file";
  EXPECT_NE(a["code"].get<std::string>().find("\"solution.c\""), std::string::npos);
  ASSERT_EQ(a["runs"].size(), 2u) << a;
  EXPECT_EQ(a["runs"][0]["mode"], "test");
  EXPECT_TRUE(a["runs"][0]["passed"].get<bool>());
  const json& ranked = a["runs"][1];
  EXPECT_EQ(ranked["mode"], "leaderboard");
  EXPECT_TRUE(ranked["passed"].get<bool>()) << ranked;
  EXPECT_FALSE(ranked["secret"].get<bool>()) << "pack boards have no secret run";
  EXPECT_EQ(ranked["gpu_type"], "cpu");
  EXPECT_DOUBLE_EQ(ranked["score"].get<double>(), 20000.0);
  EXPECT_EQ(ranked["result"]["verdict"], "pass");
  EXPECT_DOUBLE_EQ(ranked["result"]["performance"]["speedup"]["estimate"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(ranked["result"]["performance"]["solution"]["median_ms"].get<double>(), 20.0);

  const json b = wait(wrong.second, bob);
  ASSERT_EQ(b["status"], "done") << b;
  ASSERT_EQ(b["runs"].size(), 1u) << "a failing test stops before the ranked run: " << b;
  EXPECT_FALSE(b["runs"][0]["passed"].get<bool>());

  auto ranking =
      call(s.port(), "GET", "/api/v1/leaderboards/answer", bob).second["rankings"]["cpu"];
  ASSERT_EQ(ranking.size(), 1u) << ranking;
  EXPECT_EQ(ranking[0]["user"], "alice");
  EXPECT_DOUBLE_EQ(ranking[0]["score"].get<double>(), 20000.0);

  // Outside a board, benchmark mode times a passing solution too (an RL reward with its
  // speedup), and ranks nothing.
  const std::string target = "pack:timed#board/answer";
  EXPECT_EQ(call(s.port(), "POST", "/api/v1/submissions", bob,
                 {{"target", target}, {"mode", "fastest"}, {"files", {{"solution.c", "x"}}}})
                .first,
            400);
  auto timed = call(s.port(), "POST", "/api/v1/submissions", bob,
                    {{"target", target},
                     {"mode", "benchmark"},
                     {"files", {{"solution.c", timed_solution(42, 10)}}}});
  ASSERT_EQ(timed.first, 202) << timed.second;
  const json t = wait(timed.second, bob);
  ASSERT_EQ(t["runs"].size(), 2u) << t;
  EXPECT_EQ(t["runs"][0]["mode"], "judge");
  EXPECT_EQ(t["runs"][1]["mode"], "benchmark");
  EXPECT_TRUE(t["runs"][1]["passed"].get<bool>()) << t;
  EXPECT_DOUBLE_EQ(t["runs"][1]["result"]["performance"]["speedup"]["estimate"].get<double>(), 1.0);
  EXPECT_EQ(
      call(s.port(), "GET", "/api/v1/leaderboards/answer", bob).second["rankings"]["cpu"].size(),
      1u);
}

// Two service instances on one PostgreSQL database: both judge from the shared queue, no job
// twice, and each answers for submissions the other took.
TEST(ApiOnPostgresql, TwoInstancesShareOneQueue) {
  static kjudge::testing::PostgresServer pg;
  if (!pg.ok()) GTEST_SKIP() << pg.why();
  TempDir dir;
  const std::string url = pg.new_database();
  auto t = run_capture(kBinary + " users add alice --db " + url);
  ASSERT_EQ(t.rc, 0) << t.out;
  const std::string token = t.out.substr(0, t.out.find('\n'));
  Server a(url, {"--worker-id", "a"}, dir.path()), b(url, {"--worker-id", "b"}, dir.path());
  ASSERT_GT(a.port(), 0);
  ASSERT_GT(b.port(), 0);
  json items = json::array();
  const std::string code = read(kExamples / "solutions/pass-saxpy-functor/solution.cu");
  for (int i = 0; i < 24; ++i)
    items.push_back({{"target", "pack:example#example/saxpy"}, {"files", {{"solution.cu", code}}}});
  httplib::Client ca("127.0.0.1", a.port()), cb("127.0.0.1", b.port());
  ca.set_read_timeout(120, 0);
  cb.set_read_timeout(120, 0);
  httplib::Headers h = {{"Authorization", "Bearer " + token}};
  // One submission first, waited for, so that the 24 find its build in the shared cache: cold,
  // the two instances' four build workers would all compile the same saxpy with nvcc at once,
  // and on two loaded cores that outlasts the problem's 8 s limit (build_timeout, not a queue
  // fault).
  auto warm =
      ca.Post("/api/v1/submissions", h, json({{"items", {items[0]}}}).dump(), "application/json");
  ASSERT_TRUE(warm);
  const long warm_id = json::parse(warm->body)["items"][0]["id"].get<long>();
  auto warmed = ca.Get("/api/v1/submissions/" + std::to_string(warm_id) + "?wait=120", h);
  ASSERT_TRUE(warmed);
  ASSERT_TRUE(json::parse(warmed->body)["runs"][0]["passed"].get<bool>()) << warmed->body;
  auto r = ca.Post("/api/v1/submissions", h, json({{"items", items}}).dump(), "application/json");
  ASSERT_TRUE(r);
  const json answer = json::parse(r->body);
  int passed = 0;
  for (const auto& it : answer["items"]) {
    auto g = cb.Get("/api/v1/submissions/" + std::to_string(it["id"].get<long>()) + "?wait=120", h);
    ASSERT_TRUE(g);
    const json j = json::parse(g->body);
    ASSERT_EQ(j["runs"].size(), 1u) << "judged exactly once: " << j;
    passed += j["runs"][0]["passed"].get<bool>();
  }
  EXPECT_EQ(passed, 24);
  const long judged_a = json::parse(ca.Get("/api/v1/health")->body)["judged"];
  const long judged_b = json::parse(cb.Get("/api/v1/health")->body)["judged"];
  EXPECT_EQ(judged_a + judged_b, 25) << "the 24 and the first";
  EXPECT_GT(judged_a, 0) << "both instances took work";
  EXPECT_GT(judged_b, 0) << "both instances took work";
}

}  // namespace
}  // namespace kjudge

namespace kjudge {
namespace {

// docs/openapi.yaml documents every route the server has (api_server.h lists them).
TEST(OpenApi, DocumentsEveryRoute) {
  YAML::Node doc = YAML::LoadFile(std::string(KJUDGE_SOURCE_DIR) + "/docs/openapi.yaml");
  ASSERT_TRUE(doc["paths"]);
  const std::vector<std::pair<std::string, std::string>> routes = {
      {"/api/v1/health", "get"},
      {"/api/v1/submissions", "post"},
      {"/api/v1/submissions", "get"},
      {"/api/v1/submissions/{id}", "get"},
      {"/api/v1/leaderboards", "get"},
      {"/api/v1/leaderboards", "post"},
      {"/api/v1/leaderboards/{name}", "get"},
      {"/api/v1/leaderboards/{name}", "delete"},
      {"/api/v1/leaderboards/{name}/submissions", "post"},
      {"/api/v1/reviews", "get"},
      {"/api/v1/runs/{id}/review", "post"}};
  for (const auto& [path, method] : routes)
    EXPECT_TRUE(doc["paths"][path] && doc["paths"][path][method]) << method << " " << path;
  EXPECT_EQ(doc["paths"].size(), 8u) << "a documented path the server does not have";
}

}  // namespace
}  // namespace kjudge
