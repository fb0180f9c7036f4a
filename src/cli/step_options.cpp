// The sandbox options (cli/step_options.h).
#include "cli/step_options.h"

#include <fmt/format.h>

#include "core/error.h"

namespace kjudge {

void add_step_options(CLI::App* c, StepArgs& a) {
  c->add_option("--sandbox", a.sandbox,
                "bwrap (default): every build and test in bubblewrap; none: unconfined, for "
                "machines without user namespaces (said in every report)")
      ->check(CLI::IsMember({"bwrap", "none"}));
  c->add_option("--memory-limit", a.memory_limit,
                "Memory of one sandboxed build or test, all its processes together: a memory "
                "cgroup where the machine offers one, else RLIMIT_DATA per process "
                "(default 8GiB; none: no limit)");
  c->add_option("--bwrap", a.bwrap,
                "The bwrap binary (default: $KJUDGE_BWRAP, PATH, or beside kjudge)");
}

}  // namespace kjudge
