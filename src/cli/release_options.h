#pragma once
// --release NAME and --datasets DIR (ComputeEval's habit: `--release 2026-1`): the problems pack
// named by its release, found in a datasets folder (core/release.h), wherever a command takes a
// problems pack.
#include <CLI/CLI.hpp>
#include <string>

namespace kjudge {

struct ReleaseArgs {
  std::string release;
  std::string datasets;
};

void add_release_options(CLI::App* cmd, ReleaseArgs& r);

// Sets `problems` from --release where that was given. Exactly one of the two is needed: none, or
// both, is an InputError naming `problems_option` (the pack's option or argument).
void apply_release(const ReleaseArgs& r, std::string& problems, const std::string& problems_option);

}  // namespace kjudge
