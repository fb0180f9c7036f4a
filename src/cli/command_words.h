#pragma once
// What the command line says before CLI11 reads it: `--config FILE` moved to where CLI11 looks
// for it (the root's option, given after a subcommand too), and an unknown command word found
// with the nearest command a user may have meant (`kjudge evalute`).
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

namespace kjudge {

// The arguments (argv[0] first) with every `--config FILE` / `--config=FILE` moved right after
// argv[0], so that `kjudge evaluate --config f.yaml ...` means what `kjudge --config f.yaml
// evaluate ...` does. Nothing after `--` moves.
std::vector<std::string> hoist_config(int argc, char** argv);

// The message for the first word that names no command where `app` (or the subcommand chosen
// so far) expects one, with the nearest command names; nullopt when every command word is
// known. Options and their values are skipped: the walk stops at the first command that takes
// no subcommand.
std::optional<std::string> unknown_command(const CLI::App& app,
                                           const std::vector<std::string>& args);

// Edit distance (insertions, deletions, substitutions and adjacent swaps), for the hint.
std::size_t edit_distance(const std::string& a, const std::string& b);

}  // namespace kjudge
