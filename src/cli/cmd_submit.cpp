// kjudge submit: the command-line client of `kjudge serve` (docs/service.md, docs/openapi.yaml).
#include <fmt/format.h>
#include <httplib.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "core/error.h"
#include "core/popcorn_headers.h"
#include "core/read_file.h"

namespace kjudge {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct SubmitArgs {
  std::string server = "http://127.0.0.1:8080", token, target, leaderboard, mode, key, gpu,
              priority = "interactive";
  std::vector<std::string> files;
  double wait = 0;
  long status_of = 0;
  bool json = false;
};

// Why a run failed, as its result says: the verdict's detail, the service's own failure, and
// the last lines of the step that decided it (its log as the submitter may see it).
void print_why(const json& result) {
  auto text = [&](const char* key) {
    return result.contains(key) && result[key].is_string() ? result[key].get<std::string>()
                                                           : std::string();
  };
  for (const char* key : {"detail", "failure", "env_error"})
    if (std::string why = text(key); !why.empty() && why != text("verdict"))
      fmt::print("    why: {}\n", why);
  const std::string verdict = text("verdict");
  const char* step = verdict.rfind("build", 0) == 0 ? "build" : "test";
  if (!result.contains(step) || !result[step].is_object()) return;
  const std::string log = result[step].value("log", std::string());
  std::vector<std::string> lines;
  std::size_t at = 0;
  while (at < log.size()) {
    std::size_t end = log.find('\n', at);
    if (end == std::string::npos) end = log.size();
    std::string line = log.substr(at, end - at);
    if (line.find_first_not_of(" \t\r") != std::string::npos) lines.push_back(line.substr(0, 200));
    at = end + 1;
  }
  const std::size_t keep = 8;
  if (lines.empty()) return;
  fmt::print("    {} log{}:\n", step, lines.size() > keep ? " (its last lines)" : "");
  for (std::size_t i = lines.size() > keep ? lines.size() - keep : 0; i < lines.size(); ++i)
    fmt::print("    | {}\n", lines[i]);
}

// Prints the submission and returns the exit code its outcome means.
int show(const json& sub, bool as_json) {
  if (as_json) fmt::print("{}\n", sub.dump(2));
  const std::string status = sub.value("status", std::string());
  bool passed = sub.contains("runs") && !sub["runs"].empty();
  for (const auto& r : sub.value("runs", json::array())) passed &= r.value("passed", false);
  if (!as_json) {
    fmt::print("submission {}: {} ({} {})\n", sub.value("id", 0L), status,
               sub.value("target", std::string()), sub.value("mode", std::string()));
    for (const auto& r : sub.value("runs", json::array())) {
      std::string what =
          r.contains("result") && r["result"].is_object()
              ? r["result"].value("verdict", r["result"].value("failure", std::string()))
              : std::string();
      fmt::print(
          "  {}{}{}: {}{}{}\n", r.value("mode", std::string()),
          r.value("secret", false) ? " (secret)" : "",
          r.value("review", std::string()) == "pending"    ? " (awaiting review: flagged)"
          : r.value("review", std::string()) == "rejected" ? " (rejected by review)"
                                                           : "",
          r.value("passed", false) ? "passed" : "failed",
          r.contains("score") ? fmt::format(", score {:.2f} µs", r["score"].get<double>()) : "",
          what.empty() ? "" : " - " + what);
      if (!r.value("passed", false) && r.contains("result") && r["result"].is_object())
        print_why(r["result"]);
    }
  }
  if (status != "done" && status != "failed") return exit_code::judge_error;  // still waiting
  // A run the service's machine could not do (env_error: its Python or GPU) is no finding
  // against the code: the machine's exit code, as `kjudge kernelbench eval` and `task run` give.
  bool machine = false;
  for (const auto& r : sub.value("runs", json::array()))
    machine |= r.contains("result") && r["result"].is_object() &&
               r["result"].value("verdict", std::string()) == "env_error";
  if (!passed && machine) return exit_code::environment;
  return passed ? exit_code::ok : exit_code::findings;
}

// A request that failed: no answer (environment), a refused token (usage), or another HTTP error
// (findings: the server judged the request and said no).
[[noreturn]] void fail(const httplib::Result& r) {
  if (!r)
    throw Error(exit_code::environment, fmt::format("submit: no answer from the server ({})",
                                                    httplib::to_string(r.error())));
  json j = json::parse(r->body, nullptr, false);
  throw Error(r->status == 401 || r->status == 403 ? exit_code::usage : exit_code::findings,
              fmt::format("submit: HTTP {}: {}", r->status,
                          j.is_object() ? j.value("error", r->body) : r->body));
}

int submit(const SubmitArgs& a) {
  std::string token = a.token;
  if (token.empty())
    if (const char* t = std::getenv("KJUDGE_TOKEN")) token = t;
  if (token.empty())
    throw Error(exit_code::usage,
                "submit: no API token: --token or $KJUDGE_TOKEN (from `kjudge users add`)");
  httplib::Client cl(a.server);
  cl.set_read_timeout(static_cast<time_t>(a.wait) + 30, 0);
  httplib::Headers auth = {{"Authorization", "Bearer " + token}};

  long id = a.status_of;
  if (id == 0) {
    if (a.files.empty())
      throw Error(exit_code::usage, "submit: name the files to submit (or --status ID)");
    // A task submission's #!POPCORN lines, as popcorn-cli reads them; the options win.
    std::string leaderboard = a.leaderboard, gpu = a.gpu;
    if (a.files.size() == 1 && a.target.rfind("pack:", 0) != 0) {
      const PopcornHeaders h = read_popcorn_headers(read_input_file(a.files[0]));
      if (leaderboard.empty() && a.target.empty()) leaderboard = h.leaderboard;
      if (gpu.empty() && !h.gpus.empty()) gpu = h.gpus.front();
      for (const auto& u : h.unknown)
        fmt::print(stderr, "kjudge submit: ignored (not a directive kjudge knows): {}\n", u);
    }
    json body = json::object();
    if (!a.mode.empty()) body["mode"] = a.mode;
    if (!gpu.empty() && !leaderboard.empty()) {
      // The board says which GPUs it ranks on: a submission for another is refused here, with
      // the reason, rather than judged on a GPU it did not ask for.
      auto b = cl.Get("/api/v1/leaderboards/" + leaderboard, auth);
      if (!b || b->status != 200) fail(b);
      const json board = json::parse(b->body, nullptr, false);
      const json types = board.is_object() ? board.value("gpu_types", json::array()) : json();
      bool hosted = false;
      for (const auto& t : types) hosted |= t.is_string() && t.get<std::string>() == gpu;
      if (!hosted)
        throw Error(exit_code::usage, fmt::format("submit: leaderboard {} ranks on {}, not on {} "
                                                  "(the file's #!POPCORN gpu or --gpu)",
                                                  leaderboard, types.dump(), gpu));
      body["gpu_type"] = gpu;
    }
    if (!a.key.empty()) body["idempotency_key"] = a.key;
    body["priority"] = a.priority;
    std::string path = "/api/v1/submissions";
    if (!leaderboard.empty())
      path = "/api/v1/leaderboards/" + leaderboard + "/submissions";
    else
      body["target"] = a.target;
    if (a.target.rfind("pack:", 0) == 0) {
      // PATH or PATH=NAME: the file's name in the solution (default its base name).
      json files = json::object();
      for (const auto& f : a.files) {
        std::size_t eq = f.find('=');
        std::string p = f.substr(0, eq), name = eq == std::string::npos
                                                    ? fs::path(p).filename().string()
                                                    : f.substr(eq + 1);
        files[name] = read_input_file(p);
      }
      body["files"] = files;
    } else {
      if (a.files.size() != 1)
        throw Error(exit_code::usage, "submit: a task submission is one source file");
      body["code"] = read_input_file(a.files[0]);
      body["file_name"] = fs::path(a.files[0]).filename().string();
    }
    auto r = cl.Post(path, auth, body.dump(), "application/json");
    if (!r || (r->status != 200 && r->status != 202)) fail(r);
    id = json::parse(r->body)["id"].get<long>();
    if (!a.json)
      fmt::print(stderr, "kjudge submit: submission {}{}\n", id,
                 r->status == 200 ? " (seen before: the earlier one)" : "");
  }
  std::string get = "/api/v1/submissions/" + std::to_string(id);
  if (a.wait > 0) get += "?wait=" + std::to_string(a.wait);
  auto r = cl.Get(get, auth);
  if (!r || r->status != 200) fail(r);
  return show(json::parse(r->body), a.json);
}

}  // namespace

void add_submit_command(CLI::App& app, int& rc) {
  auto a = std::make_shared<SubmitArgs>();
  CLI::App* c =
      app.add_subcommand("submit", "Send a solution to a `kjudge serve` and show its verdict");
  c->add_option("FILES", a->files,
                "The solution's files (pack problems: PATH or PATH=NAME), or one source");
  c->add_option("--server", a->server, "The service's URL (default http://127.0.0.1:8080)");
  c->add_option("--token", a->token, "API token (default $KJUDGE_TOKEN)");
  c->add_option("--target", a->target, "pack:NAME#TASK_ID, task:NAME or kernelbench:NAME#L1/19");
  c->add_option("--leaderboard", a->leaderboard,
                "Submit to this leaderboard (default: the file's `#!POPCORN leaderboard NAME`)");
  c->add_option("--gpu", a->gpu,
                "The GPU type to rank on (default: the file's `#!POPCORN gpu NAME`); the board "
                "must host it");
  c->add_option("--mode", a->mode,
                "test, benchmark, leaderboard or profile (tasks); judge or benchmark (packs, "
                "KernelBench)");
  c->add_option("--idempotency-key", a->key,
                "Retrying with the same key returns the same submission");
  c->add_option("--priority", a->priority, "interactive (default) or bulk")
      ->check(CLI::IsMember({"interactive", "bulk"}));
  c->add_option("--wait", a->wait, "Seconds to wait for the verdict (default: don't wait)");
  c->add_option("--status", a->status_of, "Show submission ID instead of submitting");
  c->add_flag("--json", a->json, "Print the submission as JSON");
  c->callback([a, &rc] { rc = submit(*a); });
}

}  // namespace kjudge
