#include "cli/command_words.h"

#include <algorithm>

namespace kjudge {

std::vector<std::string> hoist_config(int argc, char** argv) {
  std::vector<std::string> front, rest;
  if (argc > 0) front.emplace_back(argv[0]);
  bool after_dashes = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (!after_dashes && arg == "--") after_dashes = true;
    if (!after_dashes && arg == "--config" && i + 1 < argc) {
      front.push_back(arg);
      front.emplace_back(argv[++i]);
    } else if (!after_dashes && arg.starts_with("--config=")) {
      front.push_back(arg);
    } else {
      rest.push_back(arg);
    }
  }
  front.insert(front.end(), rest.begin(), rest.end());
  return front;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  // Damerau-Levenshtein (optimal string alignment): `evalute` is one step from `evaluate`,
  // `valdiate` one from `validate`.
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[n][m];
}

namespace {

const CLI::App* find_subcommand(const CLI::App& app, const std::string& word) {
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    if (sub->check_name(word)) return sub;
  return nullptr;
}

// Whether the option named by `arg` (a `-x` or `--name` word without `=`) takes the next word
// as its value.
bool takes_value(const CLI::App& app, const std::string& arg) {
  if (arg.find('=') != std::string::npos) return false;
  const CLI::Option* opt = nullptr;
  try {
    opt = app.get_option_no_throw(arg);
  } catch (...) {
    return false;
  }
  if (opt == nullptr && app.get_parent() != nullptr) return takes_value(*app.get_parent(), arg);
  return opt != nullptr && opt->get_type_size_max() > 0;
}

std::string path_of(const CLI::App& at) {
  std::vector<std::string> names;
  for (const CLI::App* p = &at; p->get_parent() != nullptr; p = p->get_parent())
    names.push_back(p->get_name());
  std::string path = "kjudge";
  for (auto it = names.rbegin(); it != names.rend(); ++it) path += " " + *it;
  return path;
}

std::string hint_for(const CLI::App& at, const std::string& word) {
  std::vector<std::pair<std::size_t, std::string>> near;
  std::vector<std::string> all;
  for (const CLI::App* sub : at.get_subcommands([](const CLI::App*) { return true; })) {
    const std::string& name = sub->get_name();
    if (name.empty()) continue;
    all.push_back(name);
    const std::size_t d = edit_distance(word, name);
    const bool prefix = word.size() >= 2 && name.starts_with(word);
    if (d <= std::max<std::size_t>(1, std::min(word.size(), name.size()) / 3) || prefix)
      near.emplace_back(prefix ? 0 : d, name);
  }
  std::sort(near.begin(), near.end());
  const std::string where = path_of(at);
  std::string msg = "'" + word + "' is not a command of " + where;
  if (!near.empty()) {
    const std::size_t shown = std::min<std::size_t>(near.size(), 3);
    msg += "; did you mean";
    for (std::size_t i = 0; i < shown; ++i)
      msg += std::string(i == 0 ? " '" : i + 1 == shown ? " or '" : ", '") + near[i].second + "'";
    msg += "?";
  } else {
    std::string names;
    for (const std::string& name : all) names += (names.empty() ? "" : ", ") + name;
    msg += " (commands: " + names + ")";
  }
  return msg + " (`" + where + " --help` lists them)";
}

}  // namespace

std::optional<std::string> unknown_command(const CLI::App& app,
                                           const std::vector<std::string>& args) {
  const CLI::App* at = &app;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") return std::nullopt;
    if (arg.size() > 1 && arg[0] == '-') {
      if (takes_value(*at, arg)) ++i;
      continue;
    }
    if (at->get_subcommands([](const CLI::App*) { return true; }).empty()) return std::nullopt;
    if (const CLI::App* sub = find_subcommand(*at, arg)) {
      at = sub;
      continue;
    }
    // A command that takes positionals of its own as well as subcommands reads the word as one.
    if (!at->get_options([](const CLI::Option* o) { return o->get_positional(); }).empty())
      return std::nullopt;
    return hint_for(*at, arg);
  }
  return std::nullopt;
}

}  // namespace kjudge
