#include "cli/step_options.h"

#include <fmt/format.h>

#include <filesystem>

#include "core/byte_size.h"
#include "core/error.h"
#include "run/cgroup.h"
#include "run/sandbox.h"

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

std::optional<ResolvedSteps> resolve_step_options(const StepArgs& a, std::size_t log_cap, int* rc) {
  try {
    return resolve_step_options(a, log_cap);
  } catch (const Error& e) {
    fmt::print(stderr, "kjudge: {}\n", e.what());
    *rc = e.code();
    return std::nullopt;
  }
}

}  // namespace kjudge
