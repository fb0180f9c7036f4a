#include "cli/release_options.h"

#include "core/input_error.h"
#include "core/release.h"

namespace kjudge {

void add_release_options(CLI::App* cmd, ReleaseArgs& r) {
  cmd->add_option("--release", r.release,
                  "A ComputeEval release instead of a pack (2025-1 … 2026-1): "
                  "RELEASE-problems.tar.gz from --datasets");
  cmd->add_option("--datasets", r.datasets,
                  "Where --release finds packs (default $KJUDGE_DATASETS, else "
                  "~/.local/share/kjudge/datasets, /opt/kjudge/datasets; or their compute-eval/)");
}

void apply_release(const ReleaseArgs& r, std::string& problems,
                   const std::string& problems_option) {
  if (r.release.empty()) {
    if (!r.datasets.empty()) throw InputError("--datasets", 0, "", "goes with --release");
    if (problems.empty())
      throw InputError(problems_option, 0, "", "name the problems (or --release NAME)");
    return;
  }
  if (!problems.empty())
    throw InputError("--release", 0, "", "give either " + problems_option + " or --release");
  problems = resolve_release(r.release, r.datasets).string();
}

}  // namespace kjudge
