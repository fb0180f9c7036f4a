// kjudge users add|token|list|revoke: the service's users and their API tokens, written straight
// to its database (run where the database is: an admin's tool, not an API call).
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "board/store.h"
#include "cli/commands.h"
#include "core/exit_codes.h"
#include "core/input_error.h"
#include "core/time_stamp.h"

namespace kjudge {

namespace {

struct UsersArgs {
  std::string db = "kjudge-board.db";
  std::string name;
  std::string label;
  bool admin = false;
  bool json = false;
  std::int64_t token_id = 0;
};

// list, token and revoke read a database that must exist: opening a misspelt path would make
// an empty one (SQLite creates files) and answer as if there were no users.
std::unique_ptr<board::Store> open_existing(const std::string& db) {
  const bool url = db.starts_with("postgresql://") || db.starts_with("postgres://");
  const std::string path = db.starts_with("sqlite:") ? db.substr(7) : db;
  if (!url && !std::filesystem::exists(path))
    throw InputError(path, 0, "", "no such database (`kjudge users add` makes one)");
  return std::make_unique<board::Store>(board::open_db(db));
}

board::User existing_user(board::Store& store, const std::string& name, const std::string& db) {
  auto u = store.user_by_name(name);
  if (!u) throw InputError(db, 0, "", "no user '" + name + "' (`kjudge users list` names them)");
  return *u;
}

std::string when(std::int64_t us) { return iso8601_utc(static_cast<std::time_t>(us / 1000000)); }

void add_db_option(CLI::App* c, UsersArgs& a) {
  c->add_option("--db", a.db, "The service's database, as for serve (default kjudge-board.db)");
}

}  // namespace

void add_users_commands(CLI::App& app, int& rc) {
  auto a = std::make_shared<UsersArgs>();
  CLI::App* users = app.add_subcommand("users", "Service users and their API tokens");
  users->require_subcommand(1);

  CLI::App* add =
      users->add_subcommand("add", "Make a user and print their first API token (shown once)");
  add->add_option("NAME", a->name, "User name")->required();
  add->add_flag("--admin", a->admin, "May create and delete leaderboards, and see secret runs");
  add->add_option("--label", a->label, "What the token is for (default 'kjudge users add')");
  add_db_option(add, *a);
  add->callback([a, &rc] {
    board::Store store(board::open_db(a->db));
    // A second `add` of a name used to hand out one more token without a word; another token
    // for an existing user is asked for by name (`users token`).
    if (store.user_by_name(a->name))
      throw InputError(a->db, 0, "",
                       "user '" + a->name + "' exists; `kjudge users token " + a->name +
                           "` gives them another token, `kjudge users revoke` takes tokens back");
    const std::int64_t id = store.create_user(a->name, a->admin ? "admin" : "user");
    fmt::print("{}\n", store.issue_token(id, a->label.empty() ? "kjudge users add" : a->label));
    rc = exit_code::ok;
  });

  CLI::App* token =
      users->add_subcommand("token", "Print another API token for an existing user (shown once)");
  token->add_option("NAME", a->name, "User name")->required();
  token->add_option("--label", a->label, "What the token is for (default 'kjudge users token')");
  add_db_option(token, *a);
  token->callback([a, &rc] {
    auto owned = open_existing(a->db);
    board::Store& store = *owned;
    const board::User u = existing_user(store, a->name, a->db);
    fmt::print("{}\n", store.issue_token(u.id, a->label.empty() ? "kjudge users token" : a->label));
    rc = exit_code::ok;
  });

  CLI::App* list = users->add_subcommand("list", "The users, their roles and their tokens");
  list->add_flag("--json", a->json, "One JSON document (schema_version 1)");
  add_db_option(list, *a);
  list->callback([a, &rc] {
    auto owned = open_existing(a->db);
    board::Store& store = *owned;
    const auto users = store.users();
    if (a->json) {
      nlohmann::ordered_json out = {{"schema_version", 1}, {"kind", "kjudge-users"}};
      out["users"] = nlohmann::ordered_json::array();
      for (const auto& u : users) {
        nlohmann::ordered_json tokens = nlohmann::ordered_json::array();
        for (const auto& t : u.tokens)
          tokens.push_back({{"id", t.id}, {"label", t.label}, {"created_at", when(t.created_us)}});
        out["users"].push_back({{"name", u.user.name},
                                {"role", u.user.role},
                                {"created_at", when(u.created_us)},
                                {"tokens", tokens}});
      }
      fmt::print("{}\n", out.dump(2));
    } else {
      fmt::print("{:<20} {:<6} {:>6}  {}\n", "name", "role", "tokens", "created");
      for (const auto& u : users)
        fmt::print("{:<20} {:<6} {:>6}  {}\n", u.user.name, u.user.role, u.tokens.size(),
                   when(u.created_us));
    }
    rc = exit_code::ok;
  });

  CLI::App* revoke = users->add_subcommand(
      "revoke",
      "Take back a user's API tokens (all, or one by --token ID from `users list --json`)");
  revoke->add_option("NAME", a->name, "User name")->required();
  revoke->add_option("--token", a->token_id, "The id of the one token to revoke")
      ->check(CLI::PositiveNumber);
  add_db_option(revoke, *a);
  revoke->callback([a, revoke, &rc] {
    auto owned = open_existing(a->db);
    board::Store& store = *owned;
    const board::User u = existing_user(store, a->name, a->db);
    std::optional<std::int64_t> one;
    if (revoke->count("--token")) one = a->token_id;
    const int n = store.revoke_tokens(u.id, one);
    if (one && n == 0)
      throw InputError("--token", 0, "", fmt::format("user '{}' has no token {}", a->name, *one));
    fmt::print("revoked {} token{} of {}\n", n, n == 1 ? "" : "s", a->name);
    rc = exit_code::ok;
  });
}

}  // namespace kjudge
