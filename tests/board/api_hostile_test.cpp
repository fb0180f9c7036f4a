// The service against hostile or careless requests (issue 32), over real loopback sockets to a
// real `kjudge serve` on SQLite: the sign-in cookie, cross-site form posts, the security headers,
// batches whose items fail alone, wrong JSON types, bad leaderboard names and numbers, long
// polls and slow clients that must not hold the service.
#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <future>
#include <nlohmann/json.hpp>
#include <thread>

#include "raw_http.h"
#include "serve_fixture.h"

namespace kjudge {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

class ApiHostile : public testing::ServeFixture {
 protected:
  int port = 0;
  std::pair<int, json> call(const std::string& method, const std::string& path,
                            const std::string& token, const std::string& body = "") {
    httplib::Client c("127.0.0.1", port);
    c.set_read_timeout(30, 0);
    httplib::Headers h;
    if (!token.empty()) h.emplace("Authorization", "Bearer " + token);
    auto r = method == "GET" ? c.Get(path, h) : c.Post(path, h, body, "application/json");
    if (!r) return {0, nullptr};
    return {r->status, json::parse(r->body, nullptr, false)};
  }
  std::pair<int, json> post(const std::string& path, const std::string& token, const json& body) {
    return call("POST", path, token, body.dump());
  }
  // A raw request with the given extra header lines ("Name: value\r\n" each).
  std::string raw(const std::string& method, const std::string& path, const std::string& headers,
                  const std::string& body = "") {
    return testing::exchange(
        port, method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
                  "\r\nConnection: close\r\n" + headers +
                  "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body);
  }
  json task_item(const std::string& key) {
    return {{"target", "task:vectoradd"}, {"code", "// " + key}, {"idempotency_key", key}};
  }
};

TEST_F(ApiHostile, CookieIsMatchedByItsExactName) {
  port = serve();
  ASSERT_GT(port, 0);
  const std::string signed_out = raw("GET", "/", "Cookie: evil_kjudge_token=" + alice + "\r\n");
  EXPECT_EQ(testing::status_of(signed_out), 200);
  EXPECT_EQ(signed_out.find("signed in as"), std::string::npos)
      << "evil_kjudge_token= is another cookie";
  EXPECT_EQ(raw("GET", "/", "Cookie: kjudge_token_x=" + alice + "\r\n").find("signed in as"),
            std::string::npos);
  const std::string signed_in =
      raw("GET", "/", "Cookie: theme=dark;  kjudge_token=" + alice + " ; other=1\r\n");
  EXPECT_NE(signed_in.find("signed in as <b>alice</b>"), std::string::npos) << signed_in;
}

TEST_F(ApiHostile, CrossSiteFormPostsAreRefused) {
  port = serve();
  const std::string form = "application/x-www-form-urlencoded";
  const std::string body = "token=" + alice;
  const std::string evil =
      raw("POST", "/login", "Content-Type: " + form + "\r\nOrigin: http://evil.example\r\n", body);
  EXPECT_EQ(testing::status_of(evil), 403) << evil;
  EXPECT_EQ(testing::header_of(evil, "Set-Cookie"), "");
  const std::string fetch_site =
      raw("POST", "/login", "Content-Type: " + form + "\r\nSec-Fetch-Site: cross-site\r\n", body);
  EXPECT_EQ(testing::status_of(fetch_site), 403);
  const std::string null_origin =
      raw("POST", "/login", "Content-Type: " + form + "\r\nOrigin: null\r\n", body);
  EXPECT_EQ(testing::status_of(null_origin), 403);
  // The review and submit forms, with the admin's own cookie, from another site.
  const std::string cookie = "Cookie: kjudge_token=" + admin + "\r\n";
  EXPECT_EQ(
      testing::status_of(raw("POST", "/reviews/1",
                             cookie + "Content-Type: " + form + "\r\nSec-Fetch-Site: same-site\r\n",
                             "decision=clear")),
      403);
  EXPECT_EQ(
      testing::status_of(
          raw("POST", "/leaderboards/x/submit",
              cookie + "Content-Type: " + form + "\r\nOrigin: https://evil.example\r\n", "code=x")),
      403);
  // Our own page's post signs in.
  const std::string own =
      raw("POST", "/login",
          "Content-Type: " + form + "\r\nOrigin: http://127.0.0.1:" + std::to_string(port) +
              "\r\nSec-Fetch-Site: same-origin\r\n",
          body);
  EXPECT_EQ(testing::status_of(own), 303) << own;
  EXPECT_EQ(testing::header_of(own, "Set-Cookie").rfind("kjudge_token=" + alice + ";", 0), 0u);
}

TEST_F(ApiHostile, EveryResponseCarriesTheSecurityHeaders) {
  port = serve();
  for (const std::string path :
       {"/", "/api/v1/health", "/api/v1/submissions", "/nowhere", "/static/kjudge.js"}) {
    const std::string r = raw("GET", path, "");
    EXPECT_NE(testing::status_of(r), 0) << path;
    EXPECT_EQ(testing::header_of(r, "X-Content-Type-Options"), "nosniff") << path;
    EXPECT_EQ(testing::header_of(r, "X-Frame-Options"), "DENY") << path;
    EXPECT_EQ(testing::header_of(r, "Referrer-Policy"), "same-origin") << path;
    const std::string csp = testing::header_of(r, "Content-Security-Policy");
    EXPECT_NE(csp.find("script-src 'self'"), std::string::npos) << path << ": " << csp;
    EXPECT_EQ(csp.find("unsafe-inline"), std::string::npos) << csp;
  }
  // The pages hold no inline script for that policy to block.
  const std::string page = raw("GET", "/", "");
  EXPECT_EQ(page.find("<script>"), std::string::npos);
  EXPECT_EQ(page.find("<style>"), std::string::npos);
}

TEST_F(ApiHostile, BatchItemsStandOrFallAlone) {
  port = serve();
  json items = json::array({task_item("a"),
                            {{"target", 5}, {"code", "x"}},
                            task_item("b"),
                            {{"target", "task:vectoradd"}, {"code", "x"}, {"idempotency_key", 7}},
                            "not an object"});
  auto [st, r] = post("/api/v1/submissions", alice, {{"items", items}});
  ASSERT_EQ(st, 202) << r;
  ASSERT_EQ(r["items"].size(), 5u) << r;
  EXPECT_EQ(r["items"][0]["status"], 202);
  EXPECT_TRUE(r["items"][0]["id"].is_number_integer()) << r;
  EXPECT_EQ(r["items"][1]["status"], 400);
  EXPECT_EQ(r["items"][1]["field"], "target") << r;
  EXPECT_EQ(r["items"][2]["status"], 202);
  EXPECT_TRUE(r["items"][2]["id"].is_number_integer()) << r;
  EXPECT_EQ(r["items"][3]["field"], "idempotency_key") << r;
  EXPECT_EQ(r["items"][4]["status"], 400);
  auto [lst, list] = call("GET", "/api/v1/submissions", alice);
  ASSERT_EQ(lst, 200);
  EXPECT_EQ(list["submissions"].size(), 2u) << "the good items are committed: " << list;
}

TEST_F(ApiHostile, WrongTypesAre400NamingTheField) {
  port = serve();
  auto bad = [&](const json& body, const std::string& field) {
    auto [st, r] = post("/api/v1/submissions", alice, body);
    EXPECT_EQ(st, 400) << body << " -> " << r;
    EXPECT_EQ(r.value("field", ""), field) << body << " -> " << r;
  };
  bad({{"target", 5}, {"code", "x"}}, "target");
  bad({{"target", "task:vectoradd"}, {"code", 5}}, "code");
  bad({{"target", "task:vectoradd"}, {"code", "x"}, {"mode", json::array()}}, "mode");
  bad({{"target", "task:vectoradd"}, {"code", "x"}, {"file_name", 1.5}}, "file_name");
  bad({{"target", "task:vectoradd"}, {"code", "x"}, {"priority", "urgent"}}, "priority");
  bad({{"target", "pack:example#example/saxpy"}, {"files", {{"solution.cu", 3}}}}, "files");
  EXPECT_EQ(post("/api/v1/submissions", alice, {{"items", "x"}}).second.value("field", ""),
            "items");
  auto [st, sub] = post("/api/v1/submissions", alice, task_item("w"));
  ASSERT_EQ(st, 202) << sub;
  const std::string id = std::to_string(sub["id"].get<std::int64_t>());
  for (const std::string q : {"?wait=abc", "?wait=-1", "?wait=nan", "?wait=1e999"}) {
    auto [code, r] = call("GET", "/api/v1/submissions/" + id + q, alice);
    EXPECT_EQ(code, 400) << q << " -> " << r;
    EXPECT_EQ(r.value("field", ""), "wait") << q;
  }
  for (const std::string bad_id : {"123456789012345678901234567890", "abc", "0", "-1"}) {
    auto [code, r] = call("GET", "/api/v1/submissions/" + bad_id, alice);
    EXPECT_EQ(code, 400) << bad_id << " -> " << r;
    EXPECT_EQ(r.value("field", ""), "id") << bad_id;
  }
  auto [rst, rr] =
      post("/api/v1/runs/99999999999999999999999/review", admin, {{"decision", "clear"}});
  EXPECT_EQ(rst, 400) << rr;
  auto [nst, nr] = post("/api/v1/runs/1/review", admin, {{"decision", "clear"}, {"note", 5}});
  EXPECT_EQ(nst, 400) << nr;
  EXPECT_EQ(nr.value("field", ""), "note");
}

TEST_F(ApiHostile, BadLeaderboardNamesAndNumbersAre400) {
  port = serve();
  auto board = [](const json& name) { return json{{"name", name}, {"task", "vectoradd"}}; };
  for (const json& name : {json("a/b"), json(""), json(std::string("x\0y", 3)), json("../x"),
                           json(std::string(65, 'n')), json("a b"), json(".hidden"), json(5)}) {
    auto [st, r] = post("/api/v1/leaderboards", admin, board(name));
    EXPECT_EQ(st, 400) << name << " -> " << r;
    EXPECT_EQ(r.value("field", ""), "name") << name;
  }
  auto with = [&](const std::string& key, const json& v) {
    json b = board("ok-" + key);
    b[key] = v;
    return post("/api/v1/leaderboards", admin, b);
  };
  for (const json& d : {json(1e300), json(-5), json("soon"), json(1.5)}) {
    auto [st, r] = with("deadline_us", d);
    EXPECT_EQ(st, 400) << d << " -> " << r;
    EXPECT_EQ(r.value("field", ""), "deadline_us") << d;
  }
  EXPECT_EQ(with("gpu_types", 5).second.value("field", ""), "gpu_types");
  EXPECT_EQ(with("description", json::object()).second.value("field", ""), "description");
  EXPECT_EQ(
      post("/api/v1/leaderboards", admin, {{"name", "t"}, {"task", 5}}).second.value("field", ""),
      "task");
  auto [st, r] =
      post("/api/v1/leaderboards", admin,
           {{"name", "Good_name-1.0"}, {"task", "vectoradd"}, {"deadline_us", 4102444800000000}});
  EXPECT_EQ(st, 201) << r;
  EXPECT_EQ(call("GET", "/api/v1/leaderboards/Good_name-1.0", alice).first, 200);
}

// Over --max-queued: 429 with Retry-After, so a client knows when to come back.
TEST_F(ApiHostile, OverTheUserLimitIs429WithRetryAfter) {
  port = serve({"--no-judge", "--max-queued", "1"});
  EXPECT_EQ(post("/api/v1/submissions", alice, task_item("one")).first, 202);
  const std::string body = task_item("two").dump();
  const std::string r =
      raw("POST", "/api/v1/submissions",
          "Authorization: Bearer " + alice + "\r\nContent-Type: application/json\r\n", body);
  EXPECT_EQ(testing::status_of(r), 429) << r;
  EXPECT_EQ(testing::header_of(r, "Retry-After"), "5") << r;
}

// Sixteen clients waiting on queued submissions (more than any thread pool the service runs)
// and health still answers at once; each waiter gets its answer at its deadline.
TEST_F(ApiHostile, LongPollsHoldNoRequestThread) {
  port = serve();
  auto [st, sub] = post("/api/v1/submissions", alice, task_item("queued"));
  ASSERT_EQ(st, 202);
  const std::string path =
      "/api/v1/submissions/" + std::to_string(sub["id"].get<std::int64_t>()) + "?wait=4";
  const auto t0 = Clock::now();
  std::vector<std::future<std::pair<int, json>>> waiters;
  for (int i = 0; i < 16; ++i)
    waiters.push_back(std::async(std::launch::async, [&] { return call("GET", path, alice); }));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  for (int i = 0; i < 5; ++i) {
    const auto h0 = Clock::now();
    EXPECT_EQ(call("GET", "/api/v1/health", "").first, 200);
    EXPECT_LT(std::chrono::duration<double>(Clock::now() - h0).count(), 0.5);
    EXPECT_EQ(testing::status_of(raw("GET", "/", "")), 200);
  }
  for (auto& w : waiters) {
    auto [code, r] = w.get();
    EXPECT_EQ(code, 200);
    EXPECT_EQ(r["status"], "queued");
  }
  const double took = std::chrono::duration<double>(Clock::now() - t0).count();
  EXPECT_GT(took, 3.5) << "each waited for its deadline";
  EXPECT_LT(took, 8);
}

// A client that hangs up while its long poll is parked gives back its waiter and its
// connection slot within a tick, not at its deadline: before, 10 such clients with ?wait=600
// held 10 of --max-connections for ten minutes.
TEST_F(ApiHostile, AHungUpLongPollGivesItsSlotBack) {
  port = serve({"--no-judge", "--max-connections", "20"});
  auto [st, sub] = post("/api/v1/submissions", alice, task_item("queued"));
  ASSERT_EQ(st, 202);
  const std::string request =
      "GET /api/v1/submissions/" + std::to_string(sub["id"].get<std::int64_t>()) +
      "?wait=600 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + alice + "\r\n\r\n";
  auto health = [&] {
    const std::string r = raw("GET", "/api/v1/health", "");
    const std::size_t b = r.find("\r\n\r\n");
    return json::parse(b == std::string::npos ? "" : r.substr(b + 4), nullptr, false);
  };
  std::vector<int> fds;
  for (int i = 0; i < 10; ++i) {
    fds.push_back(testing::connect_loopback(port));
    ASSERT_TRUE(testing::send_all(fds.back(), request));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const json parked = health();
  EXPECT_EQ(parked.value("long_polls", -1), 10) << parked;
  for (int fd : fds) close(fd);
  const auto t0 = Clock::now();
  json after = health();
  while (after.value("long_polls", -1) != 0 &&
         std::chrono::duration<double>(Clock::now() - t0).count() < 5) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    after = health();
  }
  const double took = std::chrono::duration<double>(Clock::now() - t0).count();
  EXPECT_EQ(after.value("long_polls", -1), 0) << after;
  EXPECT_LE(after.value("connections", 99), 1) << after << " (the health call's own)";
  EXPECT_LT(took, 2) << "dropped within a tick or so, not at the 600 s deadline";
  // The slots are usable again: 15 new waiters fit under the cap of 20.
  std::vector<int> again;
  for (int i = 0; i < 15; ++i) {
    again.push_back(testing::connect_loopback(port));
    testing::send_all(again.back(), request);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(health().value("long_polls", -1), 15);
  for (int fd : again) close(fd);
}

// Ten connections sending a header byte every 2 s: cut at --request-timeout, and other
// clients are served meanwhile.
TEST_F(ApiHostile, SlowClientsAreCutAndDoNotFreezeOthers) {
  port = serve({"--no-judge", "--request-timeout", "2"});
  std::vector<int> slow;
  for (int i = 0; i < 10; ++i) {
    slow.push_back(testing::connect_loopback(port));
    testing::send_all(slow.back(), "GET /api/v1/health HTTP/1.1\r\nX");
  }
  const auto t0 = Clock::now();
  std::vector<bool> cut(slow.size(), false);
  while (std::chrono::duration<double>(Clock::now() - t0).count() < 5) {
    for (std::size_t i = 0; i < slow.size(); ++i)
      if (!cut[i]) {
        testing::send_all(slow[i], "a");
        cut[i] = testing::closed_by_peer(slow[i], 0);
      }
    EXPECT_EQ(call("GET", "/api/v1/health", "").first, 200);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    if (std::all_of(cut.begin(), cut.end(), [](bool c) { return c; })) break;
  }
  const double took = std::chrono::duration<double>(Clock::now() - t0).count();
  for (std::size_t i = 0; i < slow.size(); ++i) {
    EXPECT_TRUE(cut[i] || testing::closed_by_peer(slow[i], 100)) << "socket " << i;
    close(slow[i]);
  }
  EXPECT_LT(took, 4.5) << "cut at the 2 s deadline";
}

}  // namespace
}  // namespace kjudge
