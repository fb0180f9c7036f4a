// Load test of `kjudge serve` on loopback (issues 7 and 32), bounded in count and time. Prints:
//   0. abuse (issue 32): --long-polls clients parked on queued submissions and --slow sockets
//      dribbling header bytes, while /api/v1/health is timed (p50 / p99 / max);
//   0b. the highest sustained submission rate: POST /submissions from 1, 2, 4 … 64 client
//      threads, each step 3 s, with the rate and p99 of each step;
//   1. the API alone: requests per second and p50 / p99 latency of POST /submissions and
//      GET /submissions/{id} from C client threads, against a server that queues but does not
//      judge (--no-judge);
//   2. the queue's overhead per judged solution: the same host-only example solutions judged
//      through the service (submit all, wait for all) and by `kjudge evaluate` directly, both
//      on a warm build cache; overhead = (service time - evaluate time) / solutions;
//   3. latency (issue 35): one submission's path through the service, submit to verdict, for
//      a host-only problem whose build comes from the warm cache and whose test is `true` (the
//      problem bench/judge_overhead.py grades), so what is timed is the service and the judge:
//      --sequential submissions one after another (POST, then GET ?wait= until its verdict),
//      p50 / p99 / max; then one batch of --batch submissions, time to the last verdict.
// Usage: build/kjudge_bench_serve [--clients 8] [--requests 2000] [--solutions 200]
//            [--long-polls 2000] [--slow 20] [--parts abuse,rate,api,judge,latency]
//            [--sequential 50] [--batch 50] [--sandbox none|bwrap]
#include <httplib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "raw_http.h"
#include "serve_process.h"

namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

const std::string kBinary = KJUDGE_BINARY;
const fs::path kExamples = fs::path(KJUDGE_SOURCE_DIR) / "examples";

std::string sh(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The service with the example pack, on `db`.
struct Server : kjudge::testing::ServeProcess {
  Server(const fs::path& db, const fs::path& cache, bool judge)
      : ServeProcess(kBinary, args(db, cache, judge)), port(ServeProcess::port()) {}
  static std::vector<std::string> args(const fs::path& db, const fs::path& cache, bool judge) {
    std::vector<std::string> a = {"--db",        db.string(),
                                  "--pack",      "example=" + (kExamples / "pack").string(),
                                  "--cache-dir", cache.string()};
    if (!judge) a.push_back("--no-judge");
    return a;
  }
  int port;
};

double pct(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[std::min(v.size() - 1, static_cast<std::size_t>(p * v.size()))];
}

// The problem bench/judge_overhead.py grades: its build copies a file, its test is `true`.
const char* kNoopProblem =
    R"({"type": "cuda_cpp", "schema_version": 2, "task_id": "overhead/noop", "group": "overhead",)"
    R"( "date": "2026-11-28", "prompt": "Nothing: the bench measures the judge.",)"
    R"( "metadata": {"difficulty": "easy", "host_only": true}, "context_files": [],)"
    R"( "test_files": [{"path": "test/check.sh", "content": "true\n"}],)"
    R"( "build_command": "cp solution.sh run.sh", "test_command": "true",)"
    R"( "timeout_seconds": 30.0})";

// 3. One submission's latency through the service (issue 35's RL reward path).
void latency(const fs::path& dir, int sequential, int batch, const std::string& sandbox) {
  const fs::path pack = dir / "noop.jsonl";
  std::ofstream(pack) << kNoopProblem << "\n";
  const std::string token =
      sh(kBinary + " users add lat --db " + (dir / "l.db").string()).substr(0, 51);
  kjudge::testing::ServeProcess s(
      kBinary, {"--db", (dir / "l.db").string(), "--pack", "noop=" + pack.string(), "--cache-dir",
                (dir / "l-cache").string(), "--sandbox", sandbox});
  httplib::Client cl("127.0.0.1", s.port());
  cl.set_read_timeout(600, 0);
  const httplib::Headers auth = {{"Authorization", "Bearer " + token}};
  const json item = {{"target", "pack:noop#overhead/noop"}, {"files", {{"solution.sh", "true\n"}}}};
  int passed = 0, judged = 0;
  // Waits for submission `id`'s verdict; counts it.
  auto verdict = [&](long id) {
    for (;;) {
      auto g = cl.Get("/api/v1/submissions/" + std::to_string(id) + "?wait=60", auth);
      if (!g || g->status != 200) {
        std::printf("  submission %ld: %s\n", id, g ? g->body.c_str() : "no answer");
        return;
      }
      const json j = json::parse(g->body);
      const std::string status = j.value("status", "");
      if (status != "done" && status != "failed") continue;
      ++judged;
      if (j.contains("runs") && !j["runs"].empty() && j["runs"][0].value("passed", false)) ++passed;
      return;
    }
  };
  auto submit_one = [&] {
    const auto t0 = Clock::now();
    auto r = cl.Post("/api/v1/submissions", auth, item.dump(), "application/json");
    if (r && (r->status == 200 || r->status == 201 || r->status == 202))
      verdict(json::parse(r->body)["id"].get<long>());
    return 1000 * std::chrono::duration<double>(Clock::now() - t0).count();
  };
  for (int i = 0; i < 3; ++i) submit_one();  // the one build, then a warm judge
  passed = judged = 0;
  std::vector<double> ms;
  for (int i = 0; i < sequential; ++i) ms.push_back(submit_one());
  double sum = 0;
  for (double m : ms) sum += m;
  std::printf(
      "Latency of one cached-build submission (host-only, test `true`, --sandbox %s, SQLite):\n",
      sandbox.c_str());
  std::printf(
      "  %d one after another: p50 %.1f ms  p99 %.1f ms  max %.1f ms  mean %.1f ms"
      " (%d of %d judged, %d passed)\n",
      sequential, pct(ms, 0.5), pct(ms, 0.99), *std::max_element(ms.begin(), ms.end()),
      sum / ms.size(), judged, sequential, passed);
  passed = judged = 0;
  json items = json::array();
  for (int i = 0; i < batch; ++i) items.push_back(item);
  const auto t0 = Clock::now();
  auto r =
      cl.Post("/api/v1/submissions", auth, json({{"items", items}}).dump(), "application/json");
  if (!r || r->status != 202) {
    std::printf("  the batch was refused: %s\n", r ? r->body.c_str() : "no answer");
    return;
  }
  const json answer = json::parse(r->body);
  for (const auto& it : answer["items"]) verdict(it["id"].get<long>());
  const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  std::printf(
      "  a batch of %d: last verdict after %.1f ms, %.2f ms per submission"
      " (%d judged, %d passed)\n",
      batch, 1000 * secs, 1000 * secs / batch, judged, passed);
}

}  // namespace

int main(int argc, char** argv) {
  int clients = 8, requests = 2000, solutions = 200, long_polls = 2000, slow = 20;
  int sequential = 50, batch = 50;
  std::string sandbox = "bwrap";
  std::string parts = "abuse,rate,api,judge,latency";
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    if (k == "--long-polls") long_polls = std::stoi(argv[i + 1]);
    if (k == "--slow") slow = std::stoi(argv[i + 1]);
    if (k == "--parts") parts = argv[i + 1];
    if (k == "--clients") clients = std::stoi(argv[i + 1]);
    if (k == "--requests") requests = std::stoi(argv[i + 1]);
    if (k == "--solutions") solutions = std::stoi(argv[i + 1]);
    if (k == "--sequential") sequential = std::stoi(argv[i + 1]);
    if (k == "--batch") batch = std::stoi(argv[i + 1]);
    if (k == "--sandbox") sandbox = argv[i + 1];
  }
  const fs::path dir =
      fs::temp_directory_path() / ("kjudge-bench-serve-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string token =
      sh(kBinary + " users add bench --db " + (dir / "a.db").string()).substr(0, 51);
  sh(kBinary + " users add bench --db " + (dir / "b.db").string() + " > " +
     (dir / "b.token").string());
  const std::string token_b = read(dir / "b.token").substr(0, 51);
  const std::string code = read(kExamples / "solutions/pass-saxpy-functor/solution.cu");
  // The same code every time: one build, cached, serves all; what is measured is the rest.
  auto body = [&](int) {
    return json({{"target", "pack:example#example/saxpy"},
                 {"files", {{"solution.cu", code}}},
                 {"priority", "bulk"}})
        .dump();
  };
  httplib::Headers auth = {{"Authorization", "Bearer " + token}};
  auto part = [&](const std::string& name) { return parts.find(name) != std::string::npos; };
  kjudge::testing::raise_fd_limit(long_polls + slow + 1000);

  // 0. Abuse: parked long polls and slowloris sockets, and health timed meanwhile.
  if (part("abuse")) {
    Server s(dir / "a.db", dir / "cache", false);
    httplib::Client cl("127.0.0.1", s.port);
    auto r = cl.Post("/api/v1/submissions", auth, body(0), "application/json");
    const std::string path = "/api/v1/submissions/" +
                             std::to_string(json::parse(r->body)["id"].get<long>()) + "?wait=120";
    const auto t0 = Clock::now();
    std::vector<int> fds;
    for (int i = 0; i < long_polls + slow; ++i) {
      const int fd = kjudge::testing::connect_loopback(s.port);
      if (fd < 0) break;
      kjudge::testing::send_all(
          fd, i < long_polls ? "GET " + path + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
                                   token + "\r\n\r\n"
                             : std::string("GET /api/v1/health HTTP/1.1\r\nX-Drip: "));
      fds.push_back(fd);
    }
    std::atomic<bool> stop{false};
    std::thread drip([&] {
      while (!stop) {
        for (int i = long_polls; i < static_cast<int>(fds.size()); ++i)
          kjudge::testing::send_all(fds[i], "z");
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
      }
    });
    long parked = 0;
    for (int i = 0; i < 600 && parked < long_polls; ++i) {
      auto h = cl.Get("/api/v1/health");
      if (h) parked = json::parse(h->body).value("long_polls", 0L);
      if (parked < long_polls) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    const double setup = std::chrono::duration<double>(Clock::now() - t0).count();
    std::vector<double> ms;
    int failed = 0;
    for (int i = 0; i < 1000; ++i) {
      const auto a = Clock::now();
      const std::string h = kjudge::testing::exchange(
          s.port, "GET /api/v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
      ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - a).count());
      if (kjudge::testing::status_of(h) != 200) ++failed;
    }
    stop = true;
    drip.join();
    for (int fd : fds) close(fd);
    std::printf(
        "Abuse: %ld long polls parked (in %.1f s) + %d slowloris sockets; health over 1000 "
        "calls (a new connection each): p50 %.2f ms  p99 %.2f ms  max %.2f ms, %d failed\n",
        parked, setup, slow, pct(ms, 0.5), pct(ms, 0.99), pct(ms, 1), failed);
  }

  // 0b. The highest sustained submission rate: more client threads until the rate stops rising.
  if (part("rate")) {
    Server s(dir / "r.db", dir / "cache", false);
    const std::string token_r =
        sh(kBinary + " users add rate --db " + (dir / "r.db").string()).substr(0, 51);
    httplib::Headers hr = {{"Authorization", "Bearer " + token_r}};
    double best = 0;
    int best_clients = 0;
    double best_p99 = 0;
    for (int n = 1; n <= 64; n *= 2) {
      std::vector<std::vector<double>> lat(n);
      std::vector<int> refused(n, 0);
      const auto t0 = Clock::now(), end = t0 + std::chrono::seconds(3);
      std::vector<std::thread> ts;
      for (int c = 0; c < n; ++c)
        ts.emplace_back([&, c] {
          httplib::Client cl("127.0.0.1", s.port);
          for (int i = 0; Clock::now() < end; ++i) {
            const auto a = Clock::now();
            auto r = cl.Post("/api/v1/submissions", hr, body(i), "application/json");
            if (!r || r->status != 202) {
              ++refused[c];
              continue;
            }
            lat[c].push_back(std::chrono::duration<double, std::milli>(Clock::now() - a).count());
          }
        });
      for (auto& t : ts) t.join();
      const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
      std::vector<double> all;
      int ref = 0;
      for (int c = 0; c < n; ++c) {
        all.insert(all.end(), lat[c].begin(), lat[c].end());
        ref += refused[c];
      }
      const double rate = all.size() / secs;
      std::printf("  submissions, %2d clients: %6.0f /s  p50 %.2f ms  p99 %.2f ms  %d refused\n", n,
                  rate, pct(all, 0.5), pct(all, 0.99), ref);
      if (rate > best) {
        best = rate;
        best_clients = n;
        best_p99 = pct(all, 0.99);
      }
    }
    std::printf("Highest sustained submission rate: %.0f /s with %d clients (p99 %.2f ms)\n", best,
                best_clients, best_p99);
  }

  // 1. The API alone.
  if (part("api")) {
    Server s(dir / "a.db", dir / "cache", false);
    std::vector<std::vector<double>> post(clients), get(clients);
    auto t0 = Clock::now();
    std::vector<std::thread> ts;
    for (int c = 0; c < clients; ++c)
      ts.emplace_back([&, c] {
        httplib::Client cl("127.0.0.1", s.port);
        for (int i = c; i < requests; i += clients) {
          auto a = Clock::now();
          auto r = cl.Post("/api/v1/submissions", auth, body(i), "application/json");
          auto b = Clock::now();
          if (!r || r->status != 202) continue;
          const std::string id = std::to_string(json::parse(r->body)["id"].get<long>());
          auto g = cl.Get("/api/v1/submissions/" + id, auth);
          auto e = Clock::now();
          post[c].push_back(std::chrono::duration<double, std::milli>(b - a).count());
          if (g && g->status == 200)
            get[c].push_back(std::chrono::duration<double, std::milli>(e - b).count());
        }
      });
    for (auto& t : ts) t.join();
    const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
    std::vector<double> p, g;
    for (auto& v : post) p.insert(p.end(), v.begin(), v.end());
    for (auto& v : get) g.insert(g.end(), v.begin(), v.end());
    std::printf(
        "API (%d clients, SQLite, no judging): %zu POST + %zu GET in %.2f s = %.0f requests/s\n",
        clients, p.size(), g.size(), secs, (p.size() + g.size()) / secs);
    std::printf("  POST /submissions  p50 %.2f ms  p99 %.2f ms\n", pct(p, 0.5), pct(p, 0.99));
    std::printf("  GET /submissions/N p50 %.2f ms  p99 %.2f ms\n", pct(g, 0.5), pct(g, 0.99));
  }

  // 2. The queue's overhead per judged solution. Both sides have fixed costs (kjudge evaluate
  // probes the machine and checks the sandbox at start; a batch request), so the cost per
  // solution is the slope between n and 2n solutions, and the overhead is the difference of
  // the slopes.
  if (part("judge")) {
    const std::string eval_base =
        kBinary + " evaluate --problems " + (kExamples / "pack").string() +
        " --task example/saxpy -q --cache-dir " + (dir / "cache").string();
    auto evaluate = [&](int n) {
      const fs::path sols = dir / ("sols" + std::to_string(n));
      for (int i = 0; i < n; ++i) {
        fs::path d = sols / ("s" + std::to_string(i));
        fs::create_directories(d);
        std::ofstream(d / "solution.cu") << code;
        std::ofstream(d / "solution-spec.yaml") << "task_id: example/saxpy\nsample: " << i << "\n";
      }
      const std::string cmd = eval_base + " --solutions " + sols.string() + " --out " +
                              (dir / "out").string() + std::to_string(n);
      auto t0 = Clock::now();
      sh(cmd);
      return std::chrono::duration<double>(Clock::now() - t0).count();
    };
    evaluate(1);  // builds once: every later build is a cache hit on both sides
    const double e1 = evaluate(solutions), e2 = evaluate(2 * solutions);

    Server s(dir / "b.db", dir / "cache", true);
    httplib::Client cl("127.0.0.1", s.port);
    cl.set_read_timeout(600, 0);
    httplib::Headers hb = {{"Authorization", "Bearer " + token_b}};
    int passed = 0;
    auto serve = [&](int n) {
      auto t0 = Clock::now();
      json items = json::array();
      for (int i = 0; i < n; ++i) items.push_back(json::parse(body(i)));
      auto r =
          cl.Post("/api/v1/submissions", hb, json({{"items", items}}).dump(), "application/json");
      if (!r || r->status != 202) {
        std::printf("the batch was refused: %s\n", r ? r->body.c_str() : "no answer");
        return 0.0;
      }
      const json answer = json::parse(r->body);
      for (const auto& it : answer["items"]) {
        auto g =
            cl.Get("/api/v1/submissions/" + std::to_string(it["id"].get<long>()) + "?wait=600", hb);
        const json j = json::parse(g->body);
        if (j.contains("runs") && !j["runs"].empty() && j["runs"][0]["passed"].get<bool>())
          ++passed;
      }
      return std::chrono::duration<double>(Clock::now() - t0).count();
    };
    serve(1);
    const double s1 = serve(solutions), s2 = serve(2 * solutions);
    const double eval_slope = (e2 - e1) / solutions, serve_slope = (s2 - s1) / solutions;
    std::printf("Judging host-only example solutions, warm build cache (%d and %d):\n", solutions,
                2 * solutions);
    std::printf("  kjudge evaluate: %.2f s and %.2f s = %.2f ms per solution\n", e1, e2,
                1000 * eval_slope);
    std::printf("  the service:     %.2f s and %.2f s = %.2f ms per solution (%d of %d passed)\n",
                s1, s2, 1000 * serve_slope, passed, 1 + 3 * solutions);
    std::printf("  the service's overhead per solution: %.2f ms\n",
                1000 * (serve_slope - eval_slope));
  }
  if (part("latency")) latency(dir, sequential, batch, sandbox);
  fs::remove_all(dir);
  return 0;
}
