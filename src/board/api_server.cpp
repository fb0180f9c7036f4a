#include "board/api_server.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>

#include "board/db.h"
#include "board/long_poll.h"
#include "board/request_fields.h"
#include "board/web_assets.h"
#include "board/web_pages.h"
#include "board/web_security.h"
#include "core/input_error.h"
#include "core/random_secret.h"
#include "core/task_spec.h"

namespace kjudge::board {

using nlohmann::json;

namespace {

void reply(HttpResponse& res, int status, const json& body) {
  res.status = status;
  res.body = body.dump(2) + "\n";
  res.content_type = "application/json";
}

void error(HttpResponse& res, int status, const std::string& why) {
  reply(res, status, {{"error", why}});
}

// A user over --max-queued waits for a verdict or two: judging one takes seconds.
const char* const kRetryAfterOverLimit = "5";

json bad_field_json(const BadField& e) { return {{"error", e.what()}, {"field", e.field()}}; }

// An API handler whose bad fields (BadField) are answered 400 naming the field.
HttpHandler api(HttpHandler h) {
  return [h](const HttpRequest& req, HttpResponse& res) {
    try {
      h(req, res);
    } catch (const BadField& e) {
      res.headers.clear();
      reply(res, 400, bad_field_json(e));
    }
  };
}

std::optional<User> caller(Store& store, const HttpRequest& req) {
  const std::string auth = req.header("authorization");
  if (auth.rfind("Bearer ", 0) != 0) return std::nullopt;
  return store.user_by_token(auth.substr(7));
}

// The web page's sign-in: the token in an HttpOnly, SameSite=Strict cookie.
// The cookie is found by its exact name: `evil_kjudge_token=` is another cookie.
std::optional<User> page_viewer(Store& store, const HttpRequest& req) {
  auto token = cookie_value(req.header("cookie"), "kjudge_token");
  if (!token || token->empty()) return std::nullopt;
  return store.user_by_token(*token);
}

void html(HttpResponse& res, int status, const std::string& page) {
  res.status = status;
  res.body = page;
  res.content_type = "text/html; charset=utf-8";
}

// A page's form post (sign-in, review, submit): refused when a browser says another site sent
// it. The cookie is SameSite=Strict too; this also stops a cross-site sign-in, which has none.
HttpHandler form_post(HttpHandler h) {
  return [h](const HttpRequest& req, HttpResponse& res) {
    if (std::string why = cross_site_reason(req); !why.empty())
      return html(res, 403, page_message("Refused", why));
    try {
      h(req, res);
    } catch (const BadField& e) {
      html(res, 400, page_message("Not accepted", e.what()));
    }
  };
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

ApiServer::ApiServer(Store& store, JudgeService& judge, int max_unfinished_per_user,
                     HttpLimits limits)
    : store_(store),
      judge_(judge),
      max_unfinished_per_user_(max_unfinished_per_user),
      http_(std::make_unique<HttpServer>(limits)),
      polls_(std::make_unique<LongPolls>(
          [this](const std::vector<std::int64_t>& ids) { return store_.finished_among(ids); },
          [this](std::function<void()> job) { return http_->post_work(std::move(job)); },
          static_cast<std::size_t>(std::max(1, limits.max_connections)))) {
  http_->set_default_headers(security_headers());
  routes();
  judge_.on_finished([this] { polls_->wake(); });
}

ApiServer::~ApiServer() { stop(); }

bool ApiServer::start(const std::string& host, int port) {
  if (!http_->start(host, port)) return false;
  port_ = http_->port();
  return true;
}

void ApiServer::stop() {
  judge_.on_finished(nullptr);
  // The waiters first: their answers would run on the pool the transport stops.
  polls_->stop();
  http_->stop();
}

json ApiServer::submit_one(const User& u, const json& item, const std::optional<Leaderboard>& board,
                           int* status) {
  if (!item.is_object()) {
    *status = 400;
    return {{"error", "a submission is a JSON object"}};
  }
  NewSubmission n;
  n.user_id = u.id;
  if (board) n.leaderboard_id = board->id;
  n.target = !board                  ? string_field(item, "target", "")
             : board->target.empty() ? "task:" + board->task_dir
                                     : board->target;
  const bool kernelbench = n.target.rfind("kernelbench:", 0) == 0;
  n.mode = string_field(
      item, "mode", board ? "leaderboard" : (n.target.rfind("task:", 0) == 0 ? "test" : "judge"));
  n.file_name = string_field(item, "file_name", kernelbench ? "model_new.py" : "submission.cu");
  // Absent is no key at all: "" would make every keyless submission the same one.
  n.idempotency_key = optional_string(item, "idempotency_key");
  const std::string priority = string_field(item, "priority", "interactive");
  if (priority != "interactive" && priority != "bulk")
    throw BadField("priority", "must be interactive or bulk");
  n.priority = priority == "bulk" ? 0 : 10;
  if (std::string why = judge_.check_target(n.target); !why.empty()) {
    *status = 400;
    return {{"error", why}, {"field", "target"}};
  }
  if (kernelbench) {
    if (n.mode != "judge" && n.mode != "benchmark")
      throw BadField("mode",
                     "must be judge (correctness) or benchmark (correctness, then speedups over "
                     "eager PyTorch and torch.compile) for a KernelBench problem");
    auto code = optional_string(item, "code");
    if (!code) throw BadField("code", "a KernelBench solution is \"code\": one file with ModelNew");
    n.code = *code;
    // One name per problem, however the request named it, so a user's submissions of a problem
    // list together.
    judge_.kernelbench_problem(n.target, &n.target);
  } else if (n.target.rfind("pack:", 0) == 0) {
    if (board && n.mode != "test" && n.mode != "leaderboard")
      throw BadField("mode", "must be test or leaderboard on a pack problem's board");
    if (!board && n.mode != "judge" && n.mode != "benchmark")
      throw BadField("mode",
                     "must be judge (tests) or benchmark (tests, then timed against the "
                     "baseline) for a pack problem");
    if (item.contains("files") && !item["files"].is_null()) {
      if (!item["files"].is_object()) throw BadField("files", "must be {path: text}");
      for (const auto& [path, text] : item["files"].items())
        if (!text.is_string()) throw BadField("files", "'" + path + "' must be text");
      n.code = item["files"].dump();
    } else if (auto code = optional_string(item, "code")) {
      // One source text (the page's code box): named as the problem's solution file.
      const std::string name = JudgeService::solution_file_name(*judge_.pack_problem(n.target));
      if (name.empty())
        throw BadField("code", "this problem's solution is several files; send \"files\"");
      n.file_name = name;
      n.code = json({{name, *code}}).dump();
    } else {
      throw BadField(
          "files", "a pack problem's solution is \"files\": {path: text} (or \"code\": one file)");
    }
  } else {
    static const std::vector<std::string> modes = {"test", "benchmark", "leaderboard", "profile"};
    if (std::find(modes.begin(), modes.end(), n.mode) == modes.end())
      throw BadField("mode", "must be test, benchmark, leaderboard or profile");
    auto code = optional_string(item, "code");
    if (!code) throw BadField("code", "a task's submission is \"code\": the source text");
    n.code = *code;
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
}

void ApiServer::routes() {
  HttpServer& s = *http_;

  s.route("GET", "/api/v1/health", [this](const HttpRequest&, HttpResponse& res) {
    reply(res, 200,
          {{"ok", true},
           {"version", KJUDGE_VERSION},
           {"queued", store_.queued()},
           {"judged", judge_.judged()},
           {"database", store_.dialect()},
           {"connections", http_->connections()},
           {"long_polls", polls_->parked()},
           // Why this instance takes no task jobs (no usable GPU: board/task_gpu.h); absent
           // when it takes them, or judges nothing (--no-judge).
           {"tasks_refused",
            judge_.task_refusal().empty() ? json(nullptr) : json(judge_.task_refusal())},
           // Why it takes no Python task or KernelBench jobs (its Python), likewise.
           {"python_refused",
            judge_.python_refusal().empty() ? json(nullptr) : json(judge_.python_refusal())}});
  });

  s.route("POST", "/api/v1/submissions", api([this](const HttpRequest& req, HttpResponse& res) {
            auto u = caller(store_, req);
            if (!u)
              return error(res, 401, "a valid API token is needed (Authorization: Bearer ...)");
            json body = json::parse(req.body, nullptr, false);
            if (body.is_discarded() || !body.is_object())
              return error(res, 400, "the body is not a JSON object");
            if (body.contains("items")) {
              if (!body["items"].is_array())
                throw BadField("items", "must be a list of submissions");
              // Each item stands or falls alone: a bad one gets its own error, and the others
              // are committed and listed with their ids.
              json out = json::array();
              for (const auto& item : body["items"]) {
                int status = 0;
                json r;
                try {
                  r = submit_one(*u, item, std::nullopt, &status);
                } catch (const BadField& e) {
                  r = bad_field_json(e);
                  status = 400;
                }
                r["status"] = status;
                out.push_back(r);
              }
              judge_.poke();
              return reply(res, 202, {{"items", out}});
            }
            int status = 0;
            json r = submit_one(*u, body, std::nullopt, &status);
            judge_.poke();
            reply(res, status, r);
            if (status == 429) res.set_header("Retry-After", kRetryAfterOverLimit);
          }));

  s.route("GET", "/api/v1/submissions", api([this](const HttpRequest& req, HttpResponse& res) {
            auto u = caller(store_, req);
            if (!u) return error(res, 401, "a valid API token is needed");
            std::optional<std::int64_t> board;
            if (req.has_param("leaderboard")) {
              auto b = store_.leaderboard(req.param("leaderboard"));
              if (!b) return error(res, 404, "no such leaderboard");
              board = b->id;
            }
            json out = json::array();
            for (const auto& sub : store_.submissions_of(u->id, board))
              out.push_back(submission_json(store_, sub, false, u->role == "admin"));
            reply(res, 200, {{"submissions", out}});
          }));

  // A long poll (?wait=S) parks here without a thread until its submission finishes.
  s.route_deferred(
      "GET", R"(/api/v1/submissions/([^/]+))",
      [this](const HttpRequest& req, HttpResponder respond) {
        HttpResponse res;
        try {
          auto u = caller(store_, req);
          if (!u) {
            error(res, 401, "a valid API token is needed");
            return respond(std::move(res));
          }
          const std::int64_t id = id_text(req.matches[1], "id");
          const double wait_s =
              req.has_param("wait") ? seconds_text(req.param("wait"), "wait", 600) : 0;
          const auto deadline = std::chrono::steady_clock::now() +
                                std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                    std::chrono::duration<double>(wait_s));
          const bool admin = u->role == "admin";
          const bool with_code = req.has_param("code");
          auto answer = [this, id, admin, with_code, respond] {
            HttpResponse r;
            try {
              auto sub = store_.submission(id);
              if (!sub) {
                error(r, 404, "no such submission");
              } else {
                json j = submission_json(store_, *sub, true, admin);
                if (with_code) j["code"] = store_.code(sub->code_id);
                reply(r, 200, j);
              }
            } catch (const std::exception& e) {
              std::fprintf(stderr, "kjudge serve: submission %lld: %s\n",
                           static_cast<long long>(id), e.what());
              error(r, 500, "internal error");
            }
            respond(std::move(r));
          };
          auto sub = store_.submission(id);
          // Another user's submission does not exist, as far as this caller can tell.
          if (!sub || (sub->user_id != u->id && !admin)) {
            error(res, 404, "no such submission");
            return respond(std::move(res));
          }
          const bool finished = sub->status == "done" || sub->status == "failed";
          if (finished || wait_s <= 0) return answer();
          if (!polls_->park(id, deadline, answer, [respond] { return respond.gone(); })) {
            error(res, 503, "too many clients are waiting; try again");
            res.set_header("Retry-After", "1");
            return respond(std::move(res));
          }
        } catch (const BadField& e) {
          reply(res, 400, bad_field_json(e));
          respond(std::move(res));
        }
      });

  s.route("GET", "/api/v1/leaderboards", api([this](const HttpRequest& req, HttpResponse& res) {
            if (!caller(store_, req)) return error(res, 401, "a valid API token is needed");
            json out = json::array();
            for (const auto& b : store_.leaderboards())
              out.push_back(
                  {{"name", b.name}, {"description", b.description}, {"gpu_types", b.gpu_types}});
            reply(res, 200, {{"leaderboards", out}});
          }));

  s.route("POST", "/api/v1/leaderboards", api([this](const HttpRequest& req, HttpResponse& res) {
            auto u = caller(store_, req);
            if (!u) return error(res, 401, "a valid API token is needed");
            if (u->role != "admin") return error(res, 403, "only an admin creates leaderboards");
            json body = json::parse(req.body, nullptr, false);
            if (body.is_discarded() || !body.is_object())
              return error(res, 400, "the body is not a JSON object");
            auto name = optional_string(body, "name");
            auto problem_field = optional_string(body, "problem");
            auto task_field = optional_string(body, "task");
            if (!name) throw BadField("name", "a leaderboard needs a name");
            check_board_name(*name);
            if (!task_field && !problem_field)
              throw BadField(
                  "task",
                  "a leaderboard needs task (a task folder the service loaded) or problem "
                  "(pack:NAME#TASK_ID of a loaded pack)");
            Leaderboard b;
            b.name = *name;
            if (problem_field) {
              // A board over a pack problem: ranked by the solution's benchmark median.
              const std::string problem = *problem_field;
              if (problem.rfind("pack:", 0) != 0)
                throw BadField("problem", "must be pack:NAME#TASK_ID");
              if (std::string why = judge_.check_target(problem); !why.empty())
                throw BadField("problem", "'" + problem + "': " + why);
              const Problem& p = *judge_.pack_problem(problem);
              b.target = problem;
              b.task_json = json({{"problem", problem}, {"ranking_by", "median_us"}}).dump();
              b.description =
                  string_field(body, "description", p.prompt.substr(0, p.prompt.find('\n')));
            } else {
              const std::string task = *task_field;
              auto dir = judge_.options().tasks.find(task);
              if (dir == judge_.options().tasks.end())
                throw BadField("task", "no task named '" + task + "' is loaded");
              b.task_dir = task;
              // A Python task on a service whose Python cannot run it: refused now, naming the
              // interpreter, rather than a board whose every submission is refused.
              if (std::string why = judge_.python_task_refusal(task); !why.empty())
                throw BadField("task", "'" + task + "': " + why);
              try {
                TaskSpec spec = load_task(dir->second);
                b.task_json = json({{"name", spec.name},
                                    {"ranking_by", to_string(spec.ranking_by)},
                                    {"lang", spec.lang}})
                                  .dump();
                b.description = string_field(body, "description", spec.description);
              } catch (const InputError& e) {
                throw BadField("task", e.what());
              }
            }
            b.gpu_types = string_list_field(body, "gpu_types", {judge_.options().gpu_type});
            if (b.gpu_types.empty()) throw BadField("gpu_types", "must name at least one GPU type");
            if (body.contains("deadline_us") && !body["deadline_us"].is_null())
              b.deadline_us = integer_field(body, "deadline_us", 0, INT64_MAX);
            b.secret_seed = static_cast<std::int64_t>(random_u32() % 2147483647u);
            try {
              store_.create_leaderboard(b, u->id);
            } catch (const DbConflict&) {
              return error(res, 409, "a leaderboard named '" + b.name + "' exists");
            }
            reply(res, 201, {{"name", b.name}, {"gpu_types", b.gpu_types}});
          }));

  s.route("GET", R"(/api/v1/leaderboards/([^/]+))",
          api([this](const HttpRequest& req, HttpResponse& res) {
            if (!caller(store_, req)) return error(res, 401, "a valid API token is needed");
            auto b = store_.leaderboard(req.matches[1]);
            if (!b) return error(res, 404, "no such leaderboard");
            json rankings = json::object();
            for (const auto& g : b->gpu_types) {
              if (req.has_param("gpu") && req.param("gpu") != g) continue;
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
                   {b->target.empty() ? "task" : "problem",
                    b->target.empty() ? b->task_dir : b->target},
                   {"gpu_types", b->gpu_types},
                   {"rankings", rankings}});
          }));

  s.route("DELETE", R"(/api/v1/leaderboards/([^/]+))",
          api([this](const HttpRequest& req, HttpResponse& res) {
            auto u = caller(store_, req);
            if (!u) return error(res, 401, "a valid API token is needed");
            if (u->role != "admin") return error(res, 403, "only an admin deletes leaderboards");
            if (!store_.delete_leaderboard(req.matches[1]))
              return error(res, 404, "no such leaderboard");
            reply(res, 200, {{"deleted", req.matches[1]}});
          }));

  // Issue 9: flagged ranked runs wait here for an admin.
  s.route("GET", "/api/v1/reviews", api([this](const HttpRequest& req, HttpResponse& res) {
            auto u = caller(store_, req);
            if (!u) return error(res, 401, "a valid API token is needed");
            if (u->role != "admin") return error(res, 403, "only an admin reviews runs");
            json out = json::array();
            for (const auto& it : store_.pending_reviews()) out.push_back(review_json(it));
            reply(res, 200, {{"reviews", out}});
          }));

  s.route("POST", R"(/api/v1/runs/([^/]+)/review)",
          api([this](const HttpRequest& req, HttpResponse& res) {
            auto u = caller(store_, req);
            if (!u) return error(res, 401, "a valid API token is needed");
            if (u->role != "admin") return error(res, 403, "only an admin reviews runs");
            const std::int64_t id = id_text(req.matches[1], "id");
            json body = json::parse(req.body, nullptr, false);
            if (body.is_discarded() || !body.is_object())
              return error(res, 400, "the body is not a JSON object");
            const std::string state = review_state(string_field(body, "decision", ""));
            if (state.empty()) throw BadField("decision", "must be \"clear\" or \"reject\"");
            switch (store_.review(id, state, string_field(body, "note", ""), u->id)) {
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
  s.route("GET", "/", [this](const HttpRequest& req, HttpResponse& res) {
    html(res, 200, page_index(store_.leaderboards(), page_viewer(store_, req)));
  });
  s.route("GET", R"(/leaderboards/([^/]+))", [this](const HttpRequest& req, HttpResponse& res) {
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
  s.route("POST", "/login", form_post([this](const HttpRequest& req, HttpResponse& res) {
            const std::string token = req.param("token");
            if (token.empty() || !store_.user_by_token(token) ||
                token.find_first_of(";, \t\r\n") != std::string::npos)
              return html(res, 401, page_message("Not signed in", "That token is not valid."));
            res.set_header("Set-Cookie",
                           "kjudge_token=" + token + "; HttpOnly; SameSite=Strict; Path=/");
            res.redirect("/", 303);
          }));
  s.route("GET", "/static/chart.min.js", [](const HttpRequest&, HttpResponse& res) {
    res.content_type = "application/javascript";
    // Debian's libjs-chart.js, so the page needs no network.
    for (const char* p : {"/usr/share/javascript/chart.js/chart.min.js",
                          "/usr/share/javascript/chart.js/Chart.min.js"}) {
      std::ifstream in(p, std::ios::binary);
      if (!in) continue;
      std::stringstream body;
      body << in.rdbuf();
      res.body = body.str();
      return;
    }
    res.status = 404;
    res.body = "// Chart.js is not installed (apt-get install libjs-chart.js)\n";
  });
  s.route("GET", "/static/kjudge.js", [](const HttpRequest&, HttpResponse& res) {
    res.content_type = "application/javascript";
    res.body = page_script();
  });
  s.route("GET", "/static/kjudge.css", [](const HttpRequest&, HttpResponse& res) {
    res.content_type = "text/css";
    res.body = page_style();
  });
  s.route("GET", R"(/submissions/([^/]+))", [this](const HttpRequest& req, HttpResponse& res) {
    auto u = page_viewer(store_, req);
    std::optional<Submission> sub;
    try {
      sub = store_.submission(id_text(req.matches[1], "id"));
    } catch (const BadField&) {
    }
    if (!u || !sub || (sub->user_id != u->id && u->role != "admin"))
      return html(res, 404,
                  page_message("Not found", "No such submission (sign in to see yours)."));
    html(res, 200, page_submission(*sub, store_.runs_of(sub->id), u->role == "admin"));
  });
  // The admin's review list, and its clear/reject forms.
  s.route("GET", "/reviews", [this](const HttpRequest& req, HttpResponse& res) {
    auto u = page_viewer(store_, req);
    if (!u || u->role != "admin")
      return html(res, 403, page_message("Admins only", "Sign in as an admin to review runs."));
    html(res, 200, page_reviews(store_.pending_reviews(), *u));
  });
  s.route(
      "POST", R"(/reviews/([^/]+))", form_post([this](const HttpRequest& req, HttpResponse& res) {
        auto u = page_viewer(store_, req);
        if (!u || u->role != "admin")
          return html(res, 403, page_message("Admins only", "Sign in as an admin to review runs."));
        const std::string state = review_state(req.param("decision"));
        if (state.empty())
          return html(res, 400, page_message("Not reviewed", "Choose clear or reject."));
        const auto outcome =
            store_.review(id_text(req.matches[1], "id"), state, req.param("note"), u->id);
        if (outcome == ReviewOutcome::no_such_run)
          return html(res, 404, page_message("Not found", "No such run."));
        // Already decided (by another admin): the list shows what is left either way.
        res.redirect("/reviews", 303);
      }));
  s.route("POST", R"(/leaderboards/([^/]+)/submit)",
          form_post([this](const HttpRequest& req, HttpResponse& res) {
            auto u = page_viewer(store_, req);
            if (!u)
              return html(res, 401,
                          page_message("Not signed in", "Sign in with your API token first."));
            auto b = store_.leaderboard(req.matches[1]);
            if (!b) return html(res, 404, page_message("Not found", "No such leaderboard."));
            if (b->deadline_us && now_us() > *b->deadline_us)
              return html(res, 403, page_message("Closed", "The leaderboard closed."));
            json item = {{"code", req.param("code")},
                         {"mode", req.has_param("mode") ? req.param("mode") : "leaderboard"}};
            int status = 0;
            json r = submit_one(*u, item, b, &status);
            if (!r.contains("id"))
              return html(res, status,
                          page_message("Not submitted", r.value("error", std::string())));
            res.redirect("/submissions/" + std::to_string(r["id"].get<std::int64_t>()), 303);
          }));

  s.route("POST", R"(/api/v1/leaderboards/([^/]+)/submissions)",
          api([this](const HttpRequest& req, HttpResponse& res) {
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
            if (status == 429) res.set_header("Retry-After", kRetryAfterOverLimit);
          }));
}

}  // namespace kjudge::board
