#include "cli/command_tree.h"

namespace kjudge {

namespace {

void walk(const CLI::App& app, const std::string& path, std::map<std::string, CommandNode>& out) {
  CommandNode& n = out[path];
  n.description = app.get_description();
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_name().empty() || sub->get_group().empty()) continue;
    n.commands.push_back({sub->get_name(), sub->get_description(), ""});
    for (const std::string& alias : sub->get_aliases())
      n.commands.push_back({alias, sub->get_description(), ""});
    walk(*sub, path.empty() ? sub->get_name() : path + " " + sub->get_name(), out);
  }
  for (const CLI::Option* o : app.get_options([](const CLI::Option*) { return true; })) {
    const std::string value = o->get_type_size_max() > 0 ? o->get_type_name() : "";
    if (o->get_positional()) {
      n.takes_files = true;
      n.positionals.push_back({o->get_name(true, false), o->get_description(), value});
      continue;
    }
    if (o->get_group().empty()) continue;
    if (!value.empty()) n.takes_files = true;
    for (const std::string& l : o->get_lnames())
      n.options.push_back({"--" + l, o->get_description(), value});
    for (const std::string& s : o->get_snames())
      n.options.push_back({"-" + s, o->get_description(), value});
  }
}

}  // namespace

std::map<std::string, CommandNode> command_tree(const CLI::App& app) {
  std::map<std::string, CommandNode> out;
  walk(app, "", out);
  return out;
}

}  // namespace kjudge
