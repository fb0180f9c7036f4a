#pragma once
// kjudge's commands as a tree of words, read from CLI11's own description of them: what the
// completion scripts and the man page are made from, so neither drifts from the binary.
#include <CLI/CLI.hpp>
#include <map>
#include <string>
#include <vector>

namespace kjudge {

struct CommandWord {
  std::string name, help;
  std::string value;  // an option's value, as --help shows it ("INT", "TEXT"); empty for flags
};

struct CommandNode {
  std::string description;
  std::vector<CommandWord> commands;     // subcommands (and their aliases)
  std::vector<CommandWord> options;      // each --long and -s name
  std::vector<CommandWord> positionals;  // PACK, NAME, FILES ...
  bool takes_files = false;              // positionals or options with values
};

// Every command path ("", "problems", "problems list", ...) and what may follow it; hidden
// commands and options (an empty group: ComputeEval's aliases) are left out.
std::map<std::string, CommandNode> command_tree(const CLI::App& app);

}  // namespace kjudge
