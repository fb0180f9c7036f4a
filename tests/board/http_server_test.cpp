// The service's HTTP transport (src/board/http_server.cpp) on real loopback sockets: the
// whole-request deadline, the connection cap, the bounded handler pool, and answers given later
// without a thread.
#include "board/http_server.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "raw_http.h"

namespace kjudge {
namespace {

using board::HttpLimits;
using board::HttpRequest;
using board::HttpResponder;
using board::HttpResponse;
using board::HttpServer;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

const std::string kGet = "GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";

void hello(HttpServer& s) {
  s.route("GET", "/hello", [](const HttpRequest&, HttpResponse& res) { res.body = "hi"; });
}

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

TEST(HttpServer, CutsASlowClientAtTheWholeRequestDeadline) {
  HttpLimits l;
  l.request_timeout_s = 1;
  HttpServer s(l);
  hello(s);
  ASSERT_TRUE(s.start("127.0.0.1", 0));
  const int fd = testing::connect_loopback(s.port());
  ASSERT_GE(fd, 0);
  // A byte every 200 ms: each read is quick, the request never ends.
  const auto t0 = Clock::now();
  const std::string endless = "GET /hello HTTP/1.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
  bool cut = false;
  for (char c : endless) {
    if (!testing::send_all(fd, std::string(1, c)) || testing::closed_by_peer(fd, 200)) {
      cut = true;
      break;
    }
  }
  const double took = ms_since(t0);
  close(fd);
  EXPECT_TRUE(cut) << "the connection was still open after " << took << " ms";
  EXPECT_LT(took, 2500) << "cut at the 1 s deadline, not per read";
  EXPECT_EQ(testing::status_of(testing::exchange(s.port(), kGet)), 200);
}

TEST(HttpServer, DeferredAnswersHoldNoThread) {
  HttpLimits l;
  l.workers = 1;
  HttpServer s(l);
  hello(s);
  std::mutex m;
  std::vector<HttpResponder> parked;
  s.route_deferred("GET", "/wait", [&](const HttpRequest&, HttpResponder r) {
    std::lock_guard lock(m);
    parked.push_back(std::move(r));
  });
  ASSERT_TRUE(s.start("127.0.0.1", 0));
  constexpr int kWaiters = 64;
  std::vector<int> fds;
  for (int i = 0; i < kWaiters; ++i) {
    fds.push_back(testing::connect_loopback(s.port()));
    ASSERT_TRUE(testing::send_all(fds.back(),
                                  "GET /wait HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
  }
  for (int i = 0; i < 100; ++i) {
    std::lock_guard lock(m);
    if (parked.size() == kWaiters) break;
    std::this_thread::sleep_for(20ms);
  }
  ASSERT_EQ(parked.size(), static_cast<std::size_t>(kWaiters));
  // 64 waiters on one worker thread, and a plain request still goes through at once.
  const auto t0 = Clock::now();
  EXPECT_EQ(testing::status_of(testing::exchange(s.port(), kGet)), 200);
  EXPECT_LT(ms_since(t0), 1000);
  // Answered from another thread, each waiter gets its own answer.
  std::thread([&] {
    HttpResponse r;
    r.body = "done";
    for (auto& p : parked) p(r);
  }).join();
  for (int fd : fds) {
    const std::string got = testing::read_until_close(fd, 200);
    EXPECT_EQ(testing::status_of(got), 200) << got;
    EXPECT_NE(got.find("done"), std::string::npos);
    close(fd);
  }
}

TEST(HttpServer, RefusesConnectionsOverTheCapWith503AndRetryAfter) {
  HttpLimits l;
  l.max_connections = 3;
  HttpServer s(l);
  hello(s);
  ASSERT_TRUE(s.start("127.0.0.1", 0));
  std::vector<int> idle;
  for (int i = 0; i < 3; ++i) idle.push_back(testing::connect_loopback(s.port()));
  for (int i = 0; i < 100 && s.connections() < 3; ++i) std::this_thread::sleep_for(10ms);
  const std::string got = testing::exchange(s.port(), kGet);
  EXPECT_EQ(testing::status_of(got), 503) << got;
  EXPECT_EQ(testing::header_of(got, "Retry-After"), "1");
  for (int fd : idle) close(fd);
  for (int i = 0; i < 100 && s.connections() > 0; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(testing::status_of(testing::exchange(s.port(), kGet)), 200) << "served again";
}

TEST(HttpServer, AFullHandlerQueueIs503NotAWait) {
  HttpLimits l;
  l.workers = 1;
  l.max_queued = 1;
  HttpServer s(l);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> started{0};
  s.route("GET", "/block", [&](const HttpRequest&, HttpResponse&) {
    ++started;
    released.wait();
  });
  ASSERT_TRUE(s.start("127.0.0.1", 0));
  const std::string req = "GET /block HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  const int busy = testing::connect_loopback(s.port());
  testing::send_all(busy, req);  // runs, and blocks the one worker
  for (int i = 0; i < 100 && started == 0; ++i) std::this_thread::sleep_for(10ms);
  const int queued = testing::connect_loopback(s.port());
  testing::send_all(queued, req);  // waits in the queue's one place
  std::this_thread::sleep_for(100ms);
  const auto t0 = Clock::now();
  const std::string refused = testing::exchange(s.port(), req, 3000);
  EXPECT_EQ(testing::status_of(refused), 503) << refused;
  EXPECT_EQ(testing::header_of(refused, "Retry-After"), "1");
  EXPECT_LT(ms_since(t0), 1000);
  release.set_value();
  EXPECT_EQ(testing::status_of(testing::read_until_close(busy, 3000)), 200);
  EXPECT_EQ(testing::status_of(testing::read_until_close(queued, 3000)), 200);
  close(busy);
  close(queued);
}

TEST(HttpServer, TooLargeBodiesAndUnknownRoutesAreAnswered) {
  HttpLimits l;
  l.max_body_bytes = 1000;
  HttpServer s(l);
  s.set_default_headers({{"X-Frame-Options", "DENY"}});
  s.route("POST", "/echo", [](const HttpRequest& req, HttpResponse& res) { res.body = req.body; });
  ASSERT_TRUE(s.start("127.0.0.1", 0));
  const std::string big(2000, 'x');
  const std::string r413 = testing::exchange(
      s.port(), "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2000\r\n\r\n" + big);
  EXPECT_EQ(testing::status_of(r413), 413) << r413;
  const std::string r404 = testing::exchange(s.port(), kGet);
  EXPECT_EQ(testing::status_of(r404), 404);
  EXPECT_EQ(testing::header_of(r404, "X-Frame-Options"), "DENY")
      << "on the transport's own answers";
  const std::string r405 =
      testing::exchange(s.port(), "GET /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(testing::status_of(r405), 405);
  const std::string ok = testing::exchange(
      s.port(),
      "POST /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 5\r\n\r\nhello");
  EXPECT_EQ(testing::status_of(ok), 200);
  EXPECT_NE(ok.find("\r\n\r\nhello"), std::string::npos);
}

TEST(HttpServer, DecodesPathsQueriesAndForms) {
  HttpServer s;
  HttpRequest seen;
  s.route("POST", "/f/([^/]+)", [&](const HttpRequest& req, HttpResponse&) { seen = req; });
  ASSERT_TRUE(s.start("127.0.0.1", 0));
  const std::string body = "code=a%2Bb+c&mode=test";
  testing::exchange(s.port(),
                    "POST /f/x%20y?wait=2&q=%3D HTTP/1.1\r\nHost: x\r\nConnection: "
                    "close\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                    "Content-Length: " +
                        std::to_string(body.size()) + "\r\n\r\n" + body);
  EXPECT_EQ(seen.matches.at(1), "x y");
  EXPECT_EQ(seen.param("wait"), "2");
  EXPECT_EQ(seen.param("q"), "=");
  EXPECT_EQ(seen.param("code"), "a+b c");
  EXPECT_EQ(seen.param("mode"), "test");
  EXPECT_EQ(seen.header("host"), "x");
}

}  // namespace
}  // namespace kjudge
