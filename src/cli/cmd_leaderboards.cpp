// kjudge leaderboards list|show|create|delete: the service's leaderboards from the command line,
// as the API's client (an admin's token for create and delete), so that running a competition
// needs no curl.
#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "board/request_fields.h"
#include "cli/api_client.h"
#include "cli/commands.h"
#include "core/exit_codes.h"
#include "core/input_error.h"
#include "core/time_stamp.h"

namespace kjudge {

using nlohmann::json;

namespace {

struct BoardArgs {
  ApiTarget api;
  std::string name, task, problem, description, deadline, gpu;
  std::vector<std::string> gpu_types;
  bool json = false;
};

void add_api_options(CLI::App* c, BoardArgs& a) {
  c->add_option("--server", a.api.server, "The service's URL (default http://127.0.0.1:8080)");
  c->add_option("--token", a.api.token, "API token (default $KJUDGE_TOKEN)");
  c->add_flag("--json", a.json, "Print the service's answer as JSON");
}

// The service's own rule for names (they go into the URL's path), checked before asking it.
void check_name(const std::string& name) {
  try {
    board::check_board_name(name);
  } catch (const board::BadField& e) {
    throw InputError("NAME", 0, "", "'" + name + "': " + e.what());
  }
}

int list(const BoardArgs& a) {
  ApiClient api(a.api, "leaderboards");
  const json j = api.get("/api/v1/leaderboards");
  if (a.json) {
    fmt::print("{}\n", j.dump(2));
    return exit_code::ok;
  }
  fmt::print("{:<24} {:<20} {}\n", "name", "gpu types", "description");
  for (const auto& b : j.value("leaderboards", json::array())) {
    std::string gpus;
    for (const auto& g : b.value("gpu_types", json::array()))
      gpus += (gpus.empty() ? "" : ",") + g.get<std::string>();
    std::string d = b.value("description", std::string());
    d = d.substr(0, d.find('\n'));
    fmt::print("{:<24} {:<20} {}\n", b.value("name", std::string()), gpus,
               d.size() > 60 ? d.substr(0, 59) + "…" : d);
  }
  return exit_code::ok;
}

int show(const BoardArgs& a) {
  check_name(a.name);
  ApiClient api(a.api, "leaderboards");
  const json j = api.get("/api/v1/leaderboards/" + a.name + (a.gpu.empty() ? "" : "?gpu=" + a.gpu));
  if (a.json) {
    fmt::print("{}\n", j.dump(2));
    return exit_code::ok;
  }
  fmt::print("{}: {}\n", j.value("name", std::string()),
             j.contains("task") ? "task " + j.value("task", std::string())
                                : "problem " + j.value("problem", std::string()));
  const json rankings = j.value("rankings", json::object());
  for (const auto& [gpu, rows] : rankings.items()) {
    fmt::print("{} ({} ranked)\n", gpu, rows.size());
    for (const auto& r : rows)
      fmt::print("  {:>3}. {:<20} {:>12.3f} µs  submission {}\n", r.value("rank", 0),
                 r.value("user", std::string()), r.value("score", 0.0), r.value("submission", 0L));
  }
  return exit_code::ok;
}

int create(const BoardArgs& a) {
  check_name(a.name);
  if (a.task.empty() == a.problem.empty())
    throw InputError("--task", 0, "",
                     "name exactly one of --task (a task folder the service loaded) and "
                     "--problem (pack:NAME#TASK_ID)");
  json body = {{"name", a.name}};
  if (!a.task.empty()) body["task"] = a.task;
  if (!a.problem.empty()) body["problem"] = a.problem;
  if (!a.description.empty()) body["description"] = a.description;
  if (!a.gpu_types.empty()) body["gpu_types"] = a.gpu_types;
  if (!a.deadline.empty()) {
    const auto t = parse_iso8601_utc(a.deadline);
    if (!t)
      throw InputError(
          "--deadline", 0, "",
          "'" + a.deadline + "' is not a UTC time (2026-12-31T23:59:59Z or 2026-12-31)");
    body["deadline_us"] = static_cast<std::int64_t>(*t) * 1000000;
  }
  ApiClient api(a.api, "leaderboards");
  const json j = api.post("/api/v1/leaderboards", body, {201});
  if (a.json)
    fmt::print("{}\n", j.dump(2));
  else
    fmt::print("created leaderboard {}\n", j.value("name", a.name));
  return exit_code::ok;
}

int remove(const BoardArgs& a) {
  check_name(a.name);
  ApiClient api(a.api, "leaderboards");
  const json j = api.del("/api/v1/leaderboards/" + a.name);
  if (a.json)
    fmt::print("{}\n", j.dump(2));
  else
    fmt::print("deleted leaderboard {}\n", a.name);
  return exit_code::ok;
}

}  // namespace

void add_leaderboards_commands(CLI::App& app, int& rc) {
  auto a = std::make_shared<BoardArgs>();
  CLI::App* boards = app.add_subcommand(
      "leaderboards", "A `kjudge serve`'s leaderboards: list, show, create, delete");
  boards->alias("leaderboard");
  boards->require_subcommand(1);

  CLI::App* l = boards->add_subcommand("list", "Every leaderboard of the service");
  add_api_options(l, *a);
  l->callback([a, &rc] { rc = list(*a); });

  CLI::App* s = boards->add_subcommand("show", "A leaderboard's rankings, per GPU type");
  s->add_option("NAME", a->name, "The leaderboard")->required();
  s->add_option("--gpu", a->gpu, "Only this GPU type's ranking");
  add_api_options(s, *a);
  s->callback([a, &rc] { rc = show(*a); });

  CLI::App* c = boards->add_subcommand("create", "Create a leaderboard (an admin's token)");
  c->add_option("NAME", a->name, "The leaderboard's name (letters, digits, _ . -)")->required();
  c->add_option("--task", a->task, "A task folder the service loaded (--tasks)");
  c->add_option("--problem", a->problem, "A pack problem, pack:NAME#TASK_ID (--pack)");
  c->add_option("--description", a->description,
                "What competitors read (default: the task's description)");
  c->add_option("--gpu-type", a->gpu_types,
                "A GPU type runs rank under; repeat for several (default: the service's)");
  c->add_option("--deadline", a->deadline,
                "When submissions close, in UTC (2026-12-31T23:59:59Z or 2026-12-31)");
  add_api_options(c, *a);
  c->callback([a, &rc] { rc = create(*a); });

  CLI::App* d = boards->add_subcommand("delete", "Delete a leaderboard (an admin's token)");
  d->add_option("NAME", a->name, "The leaderboard")->required();
  add_api_options(d, *a);
  d->callback([a, &rc] { rc = remove(*a); });
}

}  // namespace kjudge
