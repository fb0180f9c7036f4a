#pragma once
// The sandbox options every command that runs solutions shares (--sandbox, --bwrap,
// --memory-limit). What they resolve into is the engine's (plan/step_options.h); its names stay
// visible here for the command files.
#include <CLI/CLI.hpp>
#include <cstddef>
#include <optional>

#include "plan/step_options.h"

namespace kjudge {

using plan::resolve_step_options;
using plan::ResolvedSteps;
using plan::StepArgs;

void add_step_options(CLI::App* c, StepArgs& a);

}  // namespace kjudge
