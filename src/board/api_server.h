#pragma once
// The service's HTTP/JSON API (docs/openapi.yaml), served with cpp-httplib:
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
#include <string>

#include "board/judge_service.h"
#include "board/store.h"

namespace httplib {
class Server;
}

namespace kjudge::board {

class ApiServer {
 public:
  // max_unfinished_per_user: the most queued or running submissions a user (not an admin) may
  // have; more are refused with 429. 0: no limit.
  ApiServer(Store& store, JudgeService& judge, int max_unfinished_per_user = 0);
  ~ApiServer();
  // Binds (port 0: any free port) and serves on a thread of its own; false when it cannot bind.
  bool start(const std::string& host, int port);
  int port() const { return port_; }
  void stop();

 private:
  void routes();
  Store& store_;
  JudgeService& judge_;
  int max_unfinished_per_user_ = 0;
  std::unique_ptr<httplib::Server> http_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace kjudge::board
