// Load test of `kjudge serve` on loopback (issue 7), bounded in count and time. Prints:
//   1. the API alone: requests per second and p50 / p99 latency of POST /submissions and
//      GET /submissions/{id} from C client threads, against a server that queues but does not
//      judge (--no-judge);
//   2. the queue's overhead per judged solution: the same host-only example solutions judged
//      through the service (submit all, wait for all) and by `kjudge evaluate` directly, both
//      on a warm build cache; overhead = (service time - evaluate time) / solutions.
// Usage: build/kjudge_bench_serve [--clients 8] [--requests 2000] [--solutions 200]
#include <httplib.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

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

}  // namespace

int main(int argc, char** argv) {
  int clients = 8, requests = 2000, solutions = 200;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i];
    if (k == "--clients") clients = std::stoi(argv[i + 1]);
    if (k == "--requests") requests = std::stoi(argv[i + 1]);
    if (k == "--solutions") solutions = std::stoi(argv[i + 1]);
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

  // 1. The API alone.
  {
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
  {
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
  fs::remove_all(dir);
  return 0;
}
