// kjudge completion bash|zsh: a completion script made from the command tree itself, so it
// never drifts from the commands and options kjudge has (install: docs in README, "Shell
// completion").
#include <fmt/format.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cli/command_tree.h"
#include "cli/commands.h"
#include "core/exit_codes.h"

namespace kjudge {

namespace {

std::string words(const std::vector<CommandWord>& list) {
  std::string s;
  for (const CommandWord& w : list) s += (s.empty() ? "" : " ") + w.name;
  return s;
}

// Single quotes for the shells: ' becomes '\''.
std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'')
      out += "'\\''";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out + "'";
}

// One entry of zsh's _describe: NAME:DESCRIPTION, a colon in the name escaped.
std::string described(const CommandWord& w) {
  std::string name;
  for (char c : w.name) name += c == ':' ? std::string("\\:") : std::string(1, c);
  return quoted(name + ":" + w.help);
}

std::string bash_script(const std::map<std::string, CommandNode>& tree) {
  std::string paths, cases;
  for (const auto& [path, node] : tree) {
    if (!path.empty()) paths += "    " + quoted(" " + path) + "\n";
    cases += fmt::format("    {}) words={}; files={} ;;\n", quoted(path.empty() ? "" : " " + path),
                         quoted(words(node.commands) + " " + words(node.options)),
                         node.takes_files ? 1 : 0);
  }
  return fmt::format(R"(# bash completion for kjudge (made by `kjudge completion bash`)
_kjudge() {{
  local cur=${{COMP_WORDS[COMP_CWORD]}} path="" i w known words files
  local -a paths=(
{}  )
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=${{COMP_WORDS[i]}}
    for known in "${{paths[@]}}"; do
      if [[ "$known" == "$path $w" ]]; then path="$path $w"; break; fi
    done
  done
  case "$path" in
{}    *) words=""; files=1 ;;
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
  if [[ ${{#COMPREPLY[@]}} -eq 0 && $files -eq 1 && "$cur" != -* ]]; then
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}}
complete -o filenames -o bashdefault -F _kjudge kjudge
)",
                     paths, cases);
}

std::string zsh_script(const std::map<std::string, CommandNode>& tree) {
  std::string paths, cases;
  for (const auto& [path, node] : tree) {
    if (!path.empty()) paths += "    " + quoted(" " + path) + "\n";
    std::string cmds, opts;
    for (const CommandWord& w : node.commands) cmds += "      " + described(w) + "\n";
    for (const CommandWord& w : node.options) opts += "      " + described(w) + "\n";
    cases += fmt::format(
        "    {})\n      cmds=(\n{}      )\n      opts=(\n{}      )\n      files={} ;;\n",
        quoted(path.empty() ? "" : " " + path), cmds, opts, node.takes_files ? 1 : 0);
  }
  return fmt::format(R"(#compdef kjudge
# zsh completion for kjudge (made by `kjudge completion zsh`)
_kjudge() {{
  local path_="" w known files=1
  local -a paths cmds opts
  paths=(
{}  )
  for w in "${{(@)words[2,CURRENT-1]}}"; do
    for known in "${{paths[@]}}"; do
      if [[ "$known" == "$path_ $w" ]]; then path_="$path_ $w"; break; fi
    done
  done
  case "$path_" in
{}  esac
  if [[ "$PREFIX" == -* ]]; then
    _describe -t options 'option' opts
  elif (( ${{#cmds}} )); then
    _describe -t commands 'command' cmds
  elif (( files )); then
    _files
  fi
}}
if [[ "${{funcstack[1]}}" == _kjudge ]]; then _kjudge "$@"; else compdef _kjudge kjudge; fi
)",
                     paths, cases);
}

}  // namespace

void add_completion_command(CLI::App& app, int& rc) {
  auto shell = std::make_shared<std::string>();
  CLI::App* c = app.add_subcommand(
      "completion", "Print a completion script for bash or zsh (see README, \"Shell completion\")");
  c->add_option("SHELL", *shell, "bash or zsh")->required()->check(CLI::IsMember({"bash", "zsh"}));
  c->callback([&app, shell, &rc] {
    const std::map<std::string, CommandNode> tree = command_tree(app);
    fmt::print("{}", *shell == "bash" ? bash_script(tree) : zsh_script(tree));
    rc = exit_code::ok;
  });
}

}  // namespace kjudge
