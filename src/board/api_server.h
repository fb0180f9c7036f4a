#pragma once
// The service's HTTP/JSON API (docs/openapi.yaml) and web pages, on HttpServer (http_server.h):
//   GET  /api/v1/health
//   POST /api/v1/submissions                 one solution, or {"items": [...]} for a batch
//   GET  /api/v1/submissions                 the caller's own, ?leaderboard=NAME
//   GET  /api/v1/submissions/{id}[?wait=S]   verdict, runs, logs; waits up to S seconds for it
//   GET  /api/v1/leaderboards                the boards
//   POST /api/v1/leaderboards                (admin) a board from a loaded task folder, or
//                                            over a loaded pack problem ("problem")
//   GET  /api/v1/leaderboards/{name}[?gpu=]  the ranking per GPU type
//   DELETE /api/v1/leaderboards/{name}       (admin)
//   POST /api/v1/leaderboards/{name}/submissions
//   GET  /api/v1/reviews                     (admin) flagged ranked runs waiting for review
//   POST /api/v1/runs/{id}/review            (admin) {"decision": "clear"|"reject", "note"}
// Every call but health needs `Authorization: Bearer <token>`. A submitter sees only their own
// submissions and code; secret runs are shown to admins only.
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "board/http_server.h"
#include "board/judge_service.h"
#include "board/store.h"

namespace kjudge::board {

class LongPolls;

class ApiServer {
 public:
  // max_unfinished_per_user: the most queued or running submissions a user (not an admin) may
  // have; more are refused with 429. 0: no limit.
  // `limits`: the transport's (connections, deadlines, handler pool); a long poll parks in
  // one of at most limits.max_connections places.
  ApiServer(Store& store, JudgeService& judge, int max_unfinished_per_user = 0,
            HttpLimits limits = {});
  ~ApiServer();
  // Binds (port 0: any free port) and serves on a thread of its own; false when it cannot bind.
  bool start(const std::string& host, int port);
  int port() const { return port_; }
  void stop();

 private:
  void routes();
  // One submission from a JSON object; the answer for it (id, created) or an error, and its
  // status. On a board the board says what is judged. A bad field throws BadField.
  nlohmann::json submit_one(const User& u, const nlohmann::json& item,
                            const std::optional<Leaderboard>& board, int* status);
  Store& store_;
  JudgeService& judge_;
  int max_unfinished_per_user_ = 0;
  std::unique_ptr<HttpServer> http_;
  std::unique_ptr<LongPolls> polls_;
  int port_ = 0;
};

}  // namespace kjudge::board
