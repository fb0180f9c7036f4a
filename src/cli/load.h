#pragma once
// The problem filter options (--group, --exclude-group, --difficulty, --task, --limit). The
// filters and load reports themselves are the engine's (plan/load.h); their names stay visible
// here for the command files.
#include <CLI/CLI.hpp>

#include "plan/load.h"

namespace kjudge {

using plan::filter_problems;
using plan::print_load_errors;
using plan::ProblemFilter;

void add_filter_options(CLI::App* cmd, ProblemFilter& f, bool with_limit = true);

}  // namespace kjudge
