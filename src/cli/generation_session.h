#pragma once
// The model and API options of kjudge generate and kjudge run: add_model_options fills the
// GenArgs of a generation session. The session itself is the engine's
// (plan/generation_session.h); its names stay visible here for the command files.
#include <CLI/CLI.hpp>

#include "cli/load.h"
#include "plan/generation_session.h"

namespace kjudge {

using plan::GenArgs;
using plan::GenerationSession;

// The model and API options (not --problems, --out, --resume, filters, -q, --json).
// `standalone` (kjudge generate) also names them --workers, --retries and --timeout, which in
// kjudge run belong to the judge (--requests, --api-retries and --api-timeout always work).
void add_model_options(CLI::App* cmd, GenArgs& a, bool standalone);

}  // namespace kjudge
