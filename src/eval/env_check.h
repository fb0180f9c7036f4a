#pragma once
// Checks that this machine can judge the given problems, and says what to fix. `kjudge doctor`
// prints these; `evaluate` and `validate` run them first and stop on a failure.
#include <filesystem>
#include <string>
#include <vector>

#include "core/problem.h"
#include "run/machine.h"

namespace kjudge {

enum class CheckStatus { ok, warn, fail };

struct EnvCheck {
  std::string name;
  CheckStatus status = CheckStatus::ok;
  std::string detail;
  std::string advice;  // what to do about a warn or fail
};

struct EnvCheckOptions {
  bool probe_build = true;          // compile and link a probe with the packs' flags
  std::filesystem::path scratch;    // where the probe is built; a temp dir when empty
  std::filesystem::path cache_dir;  // must be writable when the cache is on
  bool need_gpus = true;            // false: builds only (--build-only); no GPU is no failure
  // --sanitize: compute-sanitizer must be found (`sanitizer`, else beside nvcc) and run.
  std::vector<std::string> sanitize;
  std::filesystem::path sanitizer;
};

std::vector<EnvCheck> check_environment(const MachineInfo& machine,
                                        const std::vector<const Problem*>& problems,
                                        const EnvCheckOptions& options);

bool any_failed(const std::vector<EnvCheck>& checks);
std::string format_checks(const std::vector<EnvCheck>& checks);

// The link and architecture flags of a build command that the probe must try ("-lcublas",
// "-arch=native", "-gencode arch=compute_90,code=sm_90", "--extended-lambda", "-std=c++17").
std::vector<std::string> probe_flags(const std::string& build_command);

}  // namespace kjudge
