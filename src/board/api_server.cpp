#include "board/api_server.h"

#include <httplib.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "board/db.h"
#include "board/web_pages.h"
#include "core/input_error.h"
#include "core/random_secret.h"
#include "core/task_spec.h"

namespace kjudge::board {

using nlohmann::json;

namespace {

void reply(httplib::Response& res, int status, const json& body) {
  res.status = status;
  res.set_content(body.dump(2) + "\n", "application/json");
}

void error(httplib::Response& res, int status, const std::string& why) {
  reply(res, status, {{"error", why}});
}

// The largest request body taken (code, a batch of solutions).
constexpr std::size_t kMaxBody = 16u << 20;

// Debian builds cpp-httplib as a library with its 8 KiB cap on form-encoded bodies, so a plain
// handler never sees a longer one: the library answers 413 first. Both the page's submit form
// and `curl -d` (no Content-Type) send form-encoded bodies with whole kernels in them. A handler
// that reads its content itself is not capped: this one reads the body (up to kMaxBody), parses
// a form as the library would, and calls the plain handler.
using PlainHandler = std::function<void(const httplib::Request&, httplib::Response&)>;
httplib::Server::HandlerWithContentReader whole_body(PlainHandler handler) {
  return [handler](const httplib::Request& req, httplib::Response& res,
                   const httplib::ContentReader& content) {
    httplib::Request r = req;
    r.body.clear();
    bool fits = true;
    content([&](const char* data, std::size_t n) {
      fits = r.body.size() + n <= kMaxBody;
      if (fits) r.body.append(data, n);
      return fits;
    });
    if (!fits) return error(res, 413, "the body is over 16 MiB");
    if (r.get_header_value("Content-Type").rfind("application/x-www-form-urlencoded", 0) == 0)
      httplib::detail::parse_query_text(r.body, r.params);
    handler(r, res);
  };
}

std::optional<User> caller(Store& store, const httplib::Request& req) {
  const std::string auth = req.get_header_value("Authorization");
  if (auth.rfind("Bearer ", 0) != 0) return std::nullopt;
  return store.user_by_token(auth.substr(7));
}

// The web page's sign-in: the token in an HttpOnly, SameSite=Strict cookie.
std::optional<User> page_viewer(Store& store, const httplib::Request& req) {
  const std::string cookies = req.get_header_value("Cookie");
  const std::string key = "kjudge_token=";
  std::size_t a = cookies.find(key);
  if (a == std::string::npos) return std::nullopt;
  a += key.size();
  return store.user_by_token(cookies.substr(a, cookies.find(';', a) - a));
}

void html(httplib::Response& res, int status, const std::string& page) {
  res.status = status;
  res.set_content(page, "text/html; charset=utf-8");
}

json run_json(const Run& r, bool admin) {
  json j = {{"mode", r.mode},     {"secret", r.secret},         {"gpu_type", r.gpu_type},
            {"passed", r.passed}, {"started_us", r.started_us}, {"ended_us", r.ended_us}};
  if (r.score) j["score"] = *r.score;
  // The run's place on the board (issue 9): a pending run waits for an admin; its reasons are
  // the result's `cheat_flags`, which its submitter sees below.
  j["id"] = r.id;
  j["review"] = r.review;
  if (!r.review_note.empty()) j["review_note"] = r.review_note;
  // A secret run says whether it passed, never its details, to anyone but an admin.
  if (!r.secret || admin) {
    j["result"] = json::parse(r.result, nullptr, false);
    j["system_info"] = json::parse(r.system_info, nullptr, false);
  }
  return j;
}

json submission_json(Store& store, const Submission& s, bool with_runs, bool admin) {
  // Versioned like every JSON kjudge writes: `kjudge submit --json` prints this object as is.
  json j = {{"schema_version", 1}, {"kind", "kjudge-submission"},
            {"id", s.id},          {"target", s.target},
            {"mode", s.mode},      {"file_name", s.file_name},
            {"status", s.status},  {"created_us", s.created_us}};
  if (!s.idempotency_key.empty()) j["idempotency_key"] = s.idempotency_key;
  if (with_runs) {
    json runs = json::array();
    for (const auto& r : store.runs_of(s.id)) runs.push_back(run_json(r, admin));
    j["runs"] = runs;
  }
  return j;
}

// A run's `cheat_flags` (a task stage's or a pack result's), as stored.
json flags_of(const Run& r) {
  const json j = json::parse(r.result, nullptr, false);
  if (j.is_object() && j.contains("cheat_flags") && j["cheat_flags"].is_array())
    return j["cheat_flags"];
  return json::array();
}

json review_json(const ReviewItem& it) {
  json j = {{"run", it.run.id},
            {"submission", it.run.submission_id},
            {"user", it.user},
            {"leaderboard", it.leaderboard},
            {"target", it.target},
            {"file_name", it.file_name},
            {"gpu_type", it.run.gpu_type},
            {"passed", it.run.passed},
            {"ended_us", it.run.ended_us},
            {"flags", flags_of(it.run)}};
  if (it.run.score) j["score"] = *it.run.score;
  return j;
}

// "clear" / "reject" → the state the run takes; "" for anything else.
std::string review_state(const std::string& decision) {
  return decision == "clear" ? "cleared" : decision == "reject" ? "rejected" : "";
}

}  // namespace

ApiServer::ApiServer(Store& store, JudgeService& judge, int max_unfinished_per_user)
    : store_(store),
      judge_(judge),
      max_unfinished_per_user_(max_unfinished_per_user),
      http_(std::make_unique<httplib::Server>()) {
  routes();
}

ApiServer::~ApiServer() { stop(); }

bool ApiServer::start(const std::string& host, int port) {
  port_ = port == 0 ? http_->bind_to_any_port(host.c_str()) : port;
  if (port != 0 && !http_->bind_to_port(host.c_str(), port)) return false;
  if (port_ <= 0) return false;
  thread_ = std::thread([this] { http_->listen_after_bind(); });
  return true;
}

void ApiServer::stop() {
  http_->stop();
  if (thread_.joinable()) thread_.join();
}

void ApiServer::routes() {
  httplib::Server& s = *http_;
  // Anything a handler throws becomes a JSON 500, never a dropped connection.
  s.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
        std::string why = "internal error";
        try {
          std::rethrow_exception(ep);
        } catch (const std::exception& e) {
          why = e.what();
        } catch (...) {
        }
        error(res, 500, why);
      });

  s.Get("/api/v1/health", [this](const httplib::Request&, httplib::Response& res) {
    reply(res, 200,
          {{"ok", true},
           {"version", KJUDGE_VERSION},
           {"queued", store_.queued()},
           {"judged", judge_.judged()},
           {"database", store_.dialect()}});
  });

  // One submission from a JSON object; the answer for it (id, created) or an error. On a board
  // the board says what is judged: its task folder, or its pack problem.
  auto submit_one = [this](const User& u, const json& item, const std::optional<Leaderboard>& board,
                           int* status) -> json {
    NewSubmission n;
    n.user_id = u.id;
    if (board) n.leaderboard_id = board->id;
    n.target = !board                  ? item.value("target", std::string())
               : board->target.empty() ? "task:" + board->task_dir
                                       : board->target;
    n.mode = item.value(
        "mode",
        std::string(board ? "leaderboard" : (n.target.rfind("task:", 0) == 0 ? "test" : "judge")));
    n.file_name = item.value("file_name", std::string("submission.cu"));
    if (item.contains("idempotency_key"))
      n.idempotency_key = item["idempotency_key"].get<std::string>();
    n.priority = item.value("priority", std::string("interactive")) == "bulk" ? 0 : 10;
    if (std::string why = judge_.check_target(n.target); !why.empty()) {
      *status = 400;
      return {{"error", why}};
    }
    if (n.target.rfind("pack:", 0) == 0) {
      if (board && n.mode != "test" && n.mode != "leaderboard") {
        *status = 400;
        return {{"error", "mode must be test or leaderboard on a pack problem's board"}};
      }
      if (!board && n.mode != "judge" && n.mode != "benchmark") {
        *status = 400;
        return {{"error",
                 "mode must be judge (tests) or benchmark (tests, then timed against "
                 "the baseline) for a pack problem"}};
      }
      if (item.contains("files") && item["files"].is_object()) {
        n.code = item["files"].dump();
      } else if (item.contains("code") && item["code"].is_string()) {
        // One source text (the page's code box): named as the problem's solution file.
        const std::string name = JudgeService::solution_file_name(*judge_.pack_problem(n.target));
        if (name.empty()) {
          *status = 400;
          return {{"error", "code: this problem's solution is several files; send \"files\""}};
        }
        n.file_name = name;
        n.code = json({{name, item["code"].get<std::string>()}}).dump();
      } else {
        *status = 400;
        return {{"error",
                 "a pack problem's solution is \"files\": {path: text} (or \"code\": one file)"}};
      }
    } else {
      static const std::vector<std::string> modes = {"test", "benchmark", "leaderboard", "profile"};
      if (std::find(modes.begin(), modes.end(), n.mode) == modes.end()) {
        *status = 400;
        return {{"error", "mode must be test, benchmark, leaderboard or profile"}};
      }
      if (!item.contains("code") || !item["code"].is_string()) {
        *status = 400;
        return {{"error", "a task's submission is \"code\": the source text"}};
      }
      n.code = item["code"].get<std::string>();
    }
    if (u.role != "admin") n.max_unfinished = max_unfinished_per_user_;
    bool created = false;
    std::int64_t id = 0;
    try {
      id = store_.submit(n, &created);
    } catch (const OverLimit& e) {
      *status = 429;
      return {{"error", e.what()}, {"limit", e.limit()}};
    }
    *status = created ? 202 : 200;
    return {{"id", id}, {"created", created}};
  };

  s.Post("/api/v1/submissions",
         whole_body([this, submit_one](const httplib::Request& req, httplib::Response& res) {
           auto u = caller(store_, req);
           if (!u)
             return error(res, 401, "a valid API token is needed (Authorization: Bearer ...)");
           json body = json::parse(req.body, nullptr, false);
           if (body.is_discarded() || !body.is_object())
             return error(res, 400, "the body is not a JSON object");
           if (body.contains("items")) {
             if (!body["items"].is_array()) return error(res, 400, "items must be a list");
             json out = json::array();
             for (const auto& item : body["items"]) {
               int status = 0;
               json r = submit_one(*u, item, std::nullopt, &status);
               r["status"] = status;
               out.push_back(r);
             }
             return reply(res, 202, {{"items", out}});
           }
           int status = 0;
           json r = submit_one(*u, body, std::nullopt, &status);
           reply(res, status, r);
         }));

  s.Get("/api/v1/submissions", [this](const httplib::Request& req, httplib::Response& res) {
    auto u = caller(store_, req);
    if (!u) return error(res, 401, "a valid API token is needed");
    std::optional<std::int64_t> board;
    if (req.has_param("leaderboard")) {
      auto b = store_.leaderboard(req.get_param_value("leaderboard"));
      if (!b) return error(res, 404, "no such leaderboard");
      board = b->id;
    }
    json out = json::array();
    for (const auto& sub : store_.submissions_of(u->id, board))
      out.push_back(submission_json(store_, sub, false, u->role == "admin"));
    reply(res, 200, {{"submissions", out}});
  });

  s.Get(R"(/api/v1/submissions/(\d+))", [this](const httplib::Request& req,
                                               httplib::Response& res) {
    auto u = caller(store_, req);
    if (!u) return error(res, 401, "a valid API token is needed");
    const std::int64_t id = std::stoll(req.matches[1]);
    const double wait_s =
        req.has_param("wait") ? std::min(600.0, std::stod(req.get_param_value("wait"))) : 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait_s);
    for (;;) {
      auto sub = store_.submission(id);
      // Another user's submission does not exist, as far as this caller can tell.
      if (!sub || (sub->user_id != u->id && u->role != "admin"))
        return error(res, 404, "no such submission");
      const bool finished = sub->status == "done" || sub->status == "failed";
      if (finished || std::chrono::steady_clock::now() >= deadline) {
        json j = submission_json(store_, *sub, true, u->role == "admin");
        if (req.has_param("code")) j["code"] = store_.code(sub->code_id);
        return reply(res, 200, j);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
  });

  s.Get("/api/v1/leaderboards", [this](const httplib::Request& req, httplib::Response& res) {
    if (!caller(store_, req)) return error(res, 401, "a valid API token is needed");
    json out = json::array();
    for (const auto& b : store_.leaderboards())
      out.push_back({{"name", b.name}, {"description", b.description}, {"gpu_types", b.gpu_types}});
    reply(res, 200, {{"leaderboards", out}});
  });

  s.Post("/api/v1/leaderboards",
         whole_body([this](const httplib::Request& req, httplib::Response& res) {
           auto u = caller(store_, req);
           if (!u) return error(res, 401, "a valid API token is needed");
           if (u->role != "admin") return error(res, 403, "only an admin creates leaderboards");
           json body = json::parse(req.body, nullptr, false);
           if (body.is_discarded() || !body.is_object() || !body.contains("name") ||
               !body["name"].is_string() || (!body.contains("task") && !body.contains("problem")))
             return error(res, 400,
                          "a leaderboard needs name, and task (a task folder the service loaded) "
                          "or problem (pack:NAME#TASK_ID of a loaded pack)");
           Leaderboard b;
           b.name = body["name"].get<std::string>();
           if (body.contains("problem")) {
             // A board over a pack problem: ranked by the solution's benchmark median.
             const std::string problem =
                 body["problem"].is_string() ? body["problem"].get<std::string>() : "";
             if (problem.rfind("pack:", 0) != 0)
               return error(res, 400, "problem must be pack:NAME#TASK_ID");
             if (std::string why = judge_.check_target(problem); !why.empty())
               return error(res, 400, "problem '" + problem + "': " + why);
             const Problem& p = *judge_.pack_problem(problem);
             b.target = problem;
             b.task_json = json({{"problem", problem}, {"ranking_by", "median_us"}}).dump();
             b.description = body.value("description", p.prompt.substr(0, p.prompt.find('\n')));
           } else {
             const std::string task = body["task"].get<std::string>();
             auto dir = judge_.options().tasks.find(task);
             if (dir == judge_.options().tasks.end())
               return error(res, 400, "no task named '" + task + "' is loaded");
             b.task_dir = task;
             try {
               TaskSpec spec = load_task(dir->second);
               b.task_json =
                   json({{"name", spec.name}, {"ranking_by", to_string(spec.ranking_by)}}).dump();
               b.description = body.value("description", spec.description);
             } catch (const InputError& e) {
               return error(res, 400, e.what());
             }
           }
           b.gpu_types =
               body.value("gpu_types", std::vector<std::string>{judge_.options().gpu_type});
           if (body.contains("deadline_us"))
             b.deadline_us = body["deadline_us"].get<std::int64_t>();
           b.secret_seed = static_cast<std::int64_t>(random_u32() % 2147483647u);
           try {
             store_.create_leaderboard(b, u->id);
           } catch (const DbConflict&) {
             return error(res, 409, "a leaderboard named '" + b.name + "' exists");
           }
           reply(res, 201, {{"name", b.name}, {"gpu_types", b.gpu_types}});
         }));

  s.Get(R"(/api/v1/leaderboards/([^/]+))", [this](const httplib::Request& req,
                                                  httplib::Response& res) {
    if (!caller(store_, req)) return error(res, 401, "a valid API token is needed");
    auto b = store_.leaderboard(req.matches[1]);
    if (!b) return error(res, 404, "no such leaderboard");
    json rankings = json::object();
    for (const auto& g : b->gpu_types) {
      if (req.has_param("gpu") && req.get_param_value("gpu") != g) continue;
      json rows = json::array();
      for (const auto& e : store_.ranking(b->id, g))
        rows.push_back({{"rank", e.rank},
                        {"user", e.user},
                        {"score", e.score},
                        {"submission", e.submission_id},
                        {"ended_us", e.ended_us}});
      rankings[g] = rows;
    }
    reply(res, 200,
          {{"name", b->name},
           {"description", b->description},
           {b->target.empty() ? "task" : "problem", b->target.empty() ? b->task_dir : b->target},
           {"gpu_types", b->gpu_types},
           {"rankings", rankings}});
  });

  s.Delete(R"(/api/v1/leaderboards/([^/]+))",
           [this](const httplib::Request& req, httplib::Response& res) {
             auto u = caller(store_, req);
             if (!u) return error(res, 401, "a valid API token is needed");
             if (u->role != "admin") return error(res, 403, "only an admin deletes leaderboards");
             if (!store_.delete_leaderboard(req.matches[1]))
               return error(res, 404, "no such leaderboard");
             reply(res, 200, {{"deleted", std::string(req.matches[1])}});
           });

  // Issue 9: flagged ranked runs wait here for an admin.
  s.Get("/api/v1/reviews", [this](const httplib::Request& req, httplib::Response& res) {
    auto u = caller(store_, req);
    if (!u) return error(res, 401, "a valid API token is needed");
    if (u->role != "admin") return error(res, 403, "only an admin reviews runs");
    json out = json::array();
    for (const auto& it : store_.pending_reviews()) out.push_back(review_json(it));
    reply(res, 200, {{"reviews", out}});
  });

  s.Post(R"(/api/v1/runs/(\d+)/review)",
         whole_body([this](const httplib::Request& req, httplib::Response& res) {
           auto u = caller(store_, req);
           if (!u) return error(res, 401, "a valid API token is needed");
           if (u->role != "admin") return error(res, 403, "only an admin reviews runs");
           json body = json::parse(req.body, nullptr, false);
           const std::string state =
               body.is_object() && body.contains("decision") && body["decision"].is_string()
                   ? review_state(body["decision"].get<std::string>())
                   : "";
           if (state.empty() || (body.contains("note") && !body["note"].is_string()))
             return error(res, 400,
                          "a review is {\"decision\": \"clear\" or \"reject\", \"note\": text}");
           const std::int64_t id = std::stoll(req.matches[1]);
           switch (store_.review(id, state, body.value("note", std::string()), u->id)) {
             case ReviewOutcome::no_such_run:
               return error(res, 404, "no such run");
             case ReviewOutcome::not_pending:
               return error(res, 409, "the run is not waiting for review");
             case ReviewOutcome::done:
               break;
           }
           reply(res, 200, {{"run", id}, {"review", state}});
         }));

  // --- The web page -------------------------------------------------------------------------
  s.Get("/", [this](const httplib::Request& req, httplib::Response& res) {
    html(res, 200, page_index(store_.leaderboards(), page_viewer(store_, req)));
  });
  s.Get(R"(/leaderboards/([^/]+))", [this](const httplib::Request& req, httplib::Response& res) {
    auto b = store_.leaderboard(req.matches[1]);
    if (!b) return html(res, 404, page_message("Not found", "No such leaderboard."));
    std::vector<BoardView> views;
    for (const auto& g : b->gpu_types)
      views.push_back({g, store_.ranking(b->id, g), store_.score_history(b->id, g)});
    std::string code_name;
    if (const Problem* p = judge_.pack_problem(b->target))
      code_name = JudgeService::solution_file_name(*p);
    html(res, 200, page_board(*b, views, page_viewer(store_, req), code_name));
  });
  s.Post("/login", whole_body([this](const httplib::Request& req, httplib::Response& res) {
           const std::string token = req.has_param("token") ? req.get_param_value("token") : "";
           if (!store_.user_by_token(token))
             return html(res, 401, page_message("Not signed in", "That token is not valid."));
           res.set_header("Set-Cookie",
                          "kjudge_token=" + token + "; HttpOnly; SameSite=Strict; Path=/");
           res.set_redirect("/", 303);
         }));
  s.Get("/static/chart.min.js", [](const httplib::Request&, httplib::Response& res) {
    // Debian's libjs-chart.js, so the page needs no network.
    for (const char* p : {"/usr/share/javascript/chart.js/chart.min.js",
                          "/usr/share/javascript/chart.js/Chart.min.js"}) {
      std::ifstream in(p, std::ios::binary);
      if (!in) continue;
      std::stringstream body;
      body << in.rdbuf();
      res.set_content(body.str(), "application/javascript");
      return;
    }
    res.status = 404;
    res.set_content("// Chart.js is not installed (apt-get install libjs-chart.js)\n",
                    "application/javascript");
  });
  s.Get(R"(/submissions/(\d+))", [this](const httplib::Request& req, httplib::Response& res) {
    auto u = page_viewer(store_, req);
    auto sub = store_.submission(std::stoll(req.matches[1]));
    if (!u || !sub || (sub->user_id != u->id && u->role != "admin"))
      return html(res, 404,
                  page_message("Not found", "No such submission (sign in to see yours)."));
    html(res, 200, page_submission(*sub, store_.runs_of(sub->id), u->role == "admin"));
  });
  // The admin's review list, and its clear/reject forms. The cookie is SameSite=Strict, so
  // another site cannot post these forms with it.
  s.Get("/reviews", [this](const httplib::Request& req, httplib::Response& res) {
    auto u = page_viewer(store_, req);
    if (!u || u->role != "admin")
      return html(res, 403, page_message("Admins only", "Sign in as an admin to review runs."));
    html(res, 200, page_reviews(store_.pending_reviews(), *u));
  });
  s.Post(
      R"(/reviews/(\d+))", whole_body([this](const httplib::Request& req, httplib::Response& res) {
        auto u = page_viewer(store_, req);
        if (!u || u->role != "admin")
          return html(res, 403, page_message("Admins only", "Sign in as an admin to review runs."));
        const std::string state =
            review_state(req.has_param("decision") ? req.get_param_value("decision") : "");
        if (state.empty())
          return html(res, 400, page_message("Not reviewed", "Choose clear or reject."));
        const auto outcome =
            store_.review(std::stoll(req.matches[1]), state,
                          req.has_param("note") ? req.get_param_value("note") : "", u->id);
        if (outcome == ReviewOutcome::no_such_run)
          return html(res, 404, page_message("Not found", "No such run."));
        // Already decided (by another admin): the list shows what is left either way.
        res.set_redirect("/reviews", 303);
      }));
  s.Post(
      R"(/leaderboards/([^/]+)/submit)",
      whole_body([this, submit_one](const httplib::Request& req, httplib::Response& res) {
        auto u = page_viewer(store_, req);
        if (!u)
          return html(res, 401,
                      page_message("Not signed in", "Sign in with your API token first."));
        auto b = store_.leaderboard(req.matches[1]);
        if (!b) return html(res, 404, page_message("Not found", "No such leaderboard."));
        if (b->deadline_us && now_us() > *b->deadline_us)
          return html(res, 403, page_message("Closed", "The leaderboard closed."));
        json item = {{"code", req.has_param("code") ? req.get_param_value("code") : ""},
                     {"mode", req.has_param("mode") ? req.get_param_value("mode") : "leaderboard"}};
        int status = 0;
        json r = submit_one(*u, item, b, &status);
        if (!r.contains("id"))
          return html(res, status, page_message("Not submitted", r.value("error", std::string())));
        res.set_redirect("/submissions/" + std::to_string(r["id"].get<std::int64_t>()), 303);
      }));

  s.Post(R"(/api/v1/leaderboards/([^/]+)/submissions)",
         whole_body([this, submit_one](const httplib::Request& req, httplib::Response& res) {
           auto u = caller(store_, req);
           if (!u) return error(res, 401, "a valid API token is needed");
           auto b = store_.leaderboard(req.matches[1]);
           if (!b) return error(res, 404, "no such leaderboard");
           if (b->deadline_us && now_us() > *b->deadline_us)
             return error(res, 403, "the leaderboard closed");
           json body = json::parse(req.body, nullptr, false);
           if (body.is_discarded() || !body.is_object())
             return error(res, 400, "the body is not a JSON object");
           int status = 0;
           json r = submit_one(*u, body, b, &status);
           reply(res, status, r);
         }));
}

}  // namespace kjudge::board
