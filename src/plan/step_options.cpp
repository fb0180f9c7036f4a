// The sandbox options resolved into step settings (plan/step_options.h).
#include "plan/step_options.h"

#include <fmt/format.h>

#include <filesystem>

#include "core/byte_size.h"
#include "core/error.h"
#include "run/cgroup.h"
#include "run/sandbox.h"

namespace kjudge::plan {

ResolvedSteps resolve_step_options(const StepArgs& a, std::size_t log_cap) {
  ResolvedSteps r;
  // The sandbox: on unless the user says otherwise, and then said in every report.
  const bool sandboxed = a.sandbox != "none";
  const std::filesystem::path bwrap = locate_bwrap(a.bwrap);
  if (sandboxed) {
    SandboxPolicy probe;
    probe.bwrap = bwrap;
    std::string why;
    if (!sandbox_available(probe, &why)) {
      throw Error(exit_code::environment,
                  fmt::format("the sandbox (bubblewrap) does not work here: {}\n"
                              "  install it with `apt-get install bubblewrap` (or point --bwrap "
                              "at a bwrap binary); on a machine without user namespaces, "
                              "--sandbox none runs solutions unconfined",
                              why.empty() ? "bwrap failed" : why));
    }
  } else {
    fmt::print(stderr,
               "kjudge: WARNING: --sandbox none: solutions run unconfined, with the "
               "judge's rights; every report of this run says so\n");
  }
  std::optional<std::uint64_t> memory_limit =
      a.memory_limit == "none" ? std::optional<std::uint64_t>(0) : parse_byte_size(a.memory_limit);
  if (!memory_limit) {
    throw Error(exit_code::usage,
                fmt::format("--memory-limit '{}' is not a size (write e.g. 8GiB, 512M, or none)",
                            a.memory_limit));
  }
  r.settings = {sandboxed, bwrap, *memory_limit, log_cap};
  r.mode = sandboxed ? "bwrap" : "none";
  // How the limits are enforced here: a cgroup per step, or per-process rlimits only.
  r.limits_how = sandboxed ? cgroup_place().describe() : "no sandbox";
  return r;
}

}  // namespace kjudge::plan
