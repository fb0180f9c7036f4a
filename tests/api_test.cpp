// The service over real HTTP: `kjudge serve` as a process, on SQLite, judging the example pack
// (its problems run on the host, so no GPU is needed); clients speak HTTP with cpp-httplib.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "test_util.h"

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

// `kjudge serve` on a free port; stopped with SIGTERM at scope exit.
class Server {
 public:
  Server(const fs::path& db, const std::vector<std::string>& extra) {
    int out[2];
    if (pipe(out) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], 1);
      close(out[0]);
      std::vector<std::string> args = {kBinary,       "serve",
                                       "--db",        db.string(),
                                       "--port",      "0",
                                       "--pack",      "example=" + (kExamples / "pack").string(),
                                       "--tasks",     (kExamples / "tasks").string(),
                                       "--cache-dir", (db.parent_path() / "cache").string()};
      args.insert(args.end(), extra.begin(), extra.end());
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(argv[0], argv.data());
      _exit(127);
    }
    close(out[1]);
    std::string line;
    char c;
    while (read_one(out[0], &c) && c != '\n') line += c;
    close(out[0]);
    auto colon = line.rfind(':');
    if (line.rfind("listening on", 0) == 0 && colon != std::string::npos)
      port_ = std::stoi(line.substr(colon + 1));
  }
  ~Server() { stop(); }
  int stop() {
    if (pid_ <= 0) return -1;
    kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  int port() const { return port_; }

 private:
  static bool read_one(int fd, char* c) { return ::read(fd, c, 1) == 1; }
  pid_t pid_ = -1;
  int port_ = 0;
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
      {"/api/v1/leaderboards/{name}/submissions", "post"}};
  for (const auto& [path, method] : routes)
    EXPECT_TRUE(doc["paths"][path] && doc["paths"][path][method]) << method << " " << path;
  EXPECT_EQ(doc["paths"].size(), 6u) << "a documented path the server does not have";
}

}  // namespace
}  // namespace kjudge
