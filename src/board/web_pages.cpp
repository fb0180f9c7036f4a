#include "board/web_pages.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/time_stamp.h"

namespace kjudge::board {

using nlohmann::json;

namespace {

std::string layout(const std::string& title, const std::string& body,
                   const std::optional<User>& viewer, bool chart = false) {
  std::string who = viewer ? "signed in as <b>" + html_escape(viewer->name) + "</b>" +
                                 (viewer->role == "admin" ? " · <a href=/reviews>reviews</a>" : "")
                           : "<form method=post action=/login class=login><input name=token "
                             "type=password placeholder='API token' aria-label='API token'> "
                             "<button>Sign in</button></form>";
  return "<!doctype html><html lang=en><head><meta charset=utf-8><title>" + html_escape(title) +
         " · kjudge</title><link rel=stylesheet href=/static/kjudge.css>" +
         (chart ? "<script src=/static/chart.min.js></script>" : "") +
         // No inline script or style anywhere (the Content-Security-Policy allows none): the
         // page's behaviour is in /static/kjudge.js, driven by data- attributes.
         "<script src=/static/kjudge.js defer></script>" +
         "</head><body><header><a href=/>kjudge leaderboards</a><span>" + who +
         "</span></header><h1>" + html_escape(title) + "</h1>" + body + "</body></html>\n";
}

// A result's `cheat_flags` as a list: the rule, where, and why.
std::string flags_html(const json& result) {
  if (!result.is_object() || !result.contains("cheat_flags") || !result["cheat_flags"].is_array())
    return "";
  std::string out = "<ul class=flags>";
  for (const auto& f : result["cheat_flags"]) {
    if (!f.is_object()) continue;
    std::string where = f.value("file", std::string());
    if (f.contains("line") && f["line"].is_number_integer())
      where += ":" + std::to_string(f["line"].get<int>());
    out += "<li><b>" + html_escape(f.value("check", std::string())) + "</b>" +
           (where.empty() ? "" : " <code>" + html_escape(where) + "</code>") + ": " +
           html_escape(f.value("detail", std::string())) + "</li>";
  }
  return out + "</ul>";
}

std::string when(std::int64_t us) {
  return format_time(static_cast<std::time_t>(us / 1000000), "%Y-%m-%d %H:%M", true);
}

}  // namespace

std::string page_index(const std::vector<Leaderboard>& boards, const std::optional<User>& viewer) {
  std::string body = "<table><tr><th>leaderboard</th><th>GPU types</th><th>about</th></tr>";
  for (const auto& b : boards) {
    std::string gpus;
    for (const auto& g : b.gpu_types) gpus += (gpus.empty() ? "" : ", ") + html_escape(g);
    std::string about = b.description.substr(0, b.description.find('\n'));
    body += "<tr><td><a href='/leaderboards/" + html_escape(b.name) + "'>" + html_escape(b.name) +
            "</a></td><td>" + gpus + "</td><td>" + html_escape(about) + "</td></tr>";
  }
  body += "</table>";
  if (boards.empty()) body = "<p>No leaderboard yet.</p>";
  return layout("Leaderboards", body, viewer);
}

std::string page_board(const Leaderboard& b, const std::vector<BoardView>& views,
                       const std::optional<User>& viewer, const std::string& code_name) {
  std::string body = "<p>" + html_escape(b.description) + "</p>";
  if (b.deadline_us) body += "<p>Closes " + when(*b.deadline_us) + " UTC.</p>";
  for (const auto& v : views) {
    const std::string id = "chart-" + std::to_string(&v - views.data());
    body += "<h2>" + html_escape(v.gpu_type) + "</h2>";
    if (viewer)
      for (const auto& e : v.ranking)
        if (e.user == viewer->name)
          body += fmt::format("<p class=best>Your best: {:.2f} µs, rank {}.</p>", e.score, e.rank);
    body +=
        "<table class=ranking><tr><th>rank</th><th>user</th><th>score (µs)</th><th>when</th></tr>";
    for (const auto& e : v.ranking)
      body += fmt::format("<tr{}><td>{}</td><td>{}</td><td>{:.2f}</td><td>{}</td></tr>",
                          viewer && viewer->name == e.user ? " class=me" : "", e.rank,
                          html_escape(e.user), e.score, when(e.ended_us));
    body += "</table>";
    if (v.ranking.empty()) body += "<p>No ranked run yet.</p>";
    // The best score so far, after each ranked run.
    json points = json::array();
    double best = 0;
    for (std::size_t i = 0; i < v.history.size(); ++i) {
      best = i == 0 ? v.history[i].second : std::min(best, v.history[i].second);
      points.push_back({{"x", when(v.history[i].first)}, {"y", best}});
    }
    json labels = json::array();
    for (const auto& p : points) labels.push_back(p["x"]);
    body += "<canvas id=" + id + " height=90 data-points='" + html_escape(points.dump()) +
            "' data-labels='" + html_escape(labels.dump()) + "'></canvas>";
  }
  if (viewer) {
    // A pack board's code box is the problem's solution file; it has no benchmark mode (its
    // ranked run is the benchmark).
    const bool pack = !b.target.empty();
    // A Python task's board (GPU MODE's form) takes Python.
    const json task = json::parse(b.task_json, nullptr, false);
    const bool python = task.is_object() && task.value("lang", std::string()) == "py";
    const std::string placeholder = pack     ? "The solution's " + code_name
                                    : python ? "def custom_kernel(data): ..."
                                             : "output_t custom_kernel(const input_t& in) { ... }";
    body += "<h2>Submit</h2><form method=post action='/leaderboards/" + html_escape(b.name) +
            "/submit'>" +
            (pack ? "<p>Solution file <code class=file-name>" + html_escape(code_name) +
                        "</code> of " + html_escape(b.target) + "</p>"
                  : "") +
            "<textarea name=code placeholder='" + html_escape(placeholder) +
            "'></textarea><p><select name=mode><option>leaderboard</option>" +
            (pack ? "" : "<option>benchmark</option>") +
            "<option>test</option></select> <button>Submit</button></p></form>";
  }
  return layout(b.name, body, viewer, true);
}

std::string page_submission(const Submission& s, const std::vector<Run>& runs, bool admin) {
  std::string body = fmt::format("<p>Submission {}: <b class=status>{}</b> · {} · {} · {}</p>",
                                 s.id, html_escape(s.status), html_escape(s.target),
                                 html_escape(s.mode), when(s.created_us));
  if (s.status == "queued" || s.status == "running")
    body += "<p data-reload-ms=2000>Not finished: this page reloads every 2 s.</p>";
  for (const auto& r : runs) {
    body += fmt::format("<h2>{}{}: {}{}</h2>", html_escape(r.mode), r.secret ? " (secret)" : "",
                        r.passed ? "passed" : "failed",
                        r.score ? fmt::format(", score {:.2f} µs", *r.score) : "");
    if (r.review == "pending")
      body +=
          "<p class=review>Awaiting review: the static pass flagged this solution, so this run "
          "is not ranked until an admin clears it.</p>";
    else if (r.review == "rejected")
      body += "<p class=review>Rejected on review: this run is not ranked." +
              (r.review_note.empty() ? "" : " " + html_escape(r.review_note)) + "</p>";
    else if (r.review == "cleared")
      body += "<p class=review>Cleared on review: this run is ranked." +
              (r.review_note.empty() ? "" : " " + html_escape(r.review_note)) + "</p>";
    if (r.secret && !admin) continue;  // whether it passed, nothing more
    json j = json::parse(r.result, nullptr, false);
    if (!j.is_object()) continue;
    if (r.review != "none") body += flags_html(j);
    for (const char* k : {"verdict", "detail", "failure"})
      if (j.contains(k) && j[k].is_string() && !j[k].get<std::string>().empty())
        body += "<p>" + std::string(k) + ": " + html_escape(j[k].get<std::string>()) + "</p>";
    for (const char* k : {"log", "build_log", "test_log"})
      if (j.contains(k) && j[k].is_string() && !j[k].get<std::string>().empty())
        body += "<details><summary>" + std::string(k) + "</summary><pre>" +
                html_escape(j[k].get<std::string>()) + "</pre></details>";
  }
  return layout("Submission " + std::to_string(s.id), body, std::nullopt);
}

std::string page_reviews(const std::vector<ReviewItem>& items, const User& admin) {
  std::string body =
      "<p>Ranked runs the static pass flagged wait here; none of them is on its board until it "
      "is cleared. A rejected run never ranks.</p>";
  if (items.empty()) body += "<p class=empty>Nothing waits for review.</p>";
  for (const auto& it : items) {
    const std::string run = std::to_string(it.run.id);
    body += fmt::format(
        "<section class=pending id=run-{}><h2>Run {} · {} · {}</h2><p><a href='/submissions/{}'>"
        "submission {}</a> · {} · {} · {}</p>",
        run, run, html_escape(it.user), html_escape(it.leaderboard), it.run.submission_id,
        it.run.submission_id, html_escape(it.run.gpu_type),
        it.run.score ? fmt::format("score {:.2f} µs", *it.run.score) : std::string("no score"),
        when(it.run.ended_us));
    body += flags_html(json::parse(it.run.result, nullptr, false));
    body += "<form method=post action='/reviews/" + run +
            "'><input name=note placeholder='note (shown to the submitter)' aria-label=note> "
            "<button name=decision value=clear>Clear</button> "
            "<button name=decision value=reject>Reject</button></form></section>";
  }
  return layout("Pending review", body, admin);
}

std::string page_message(const std::string& title, const std::string& text) {
  return layout(title, "<p>" + html_escape(text) + "</p>", std::nullopt);
}

}  // namespace kjudge::board
