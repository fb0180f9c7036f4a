// run.json's header (plan/run_json.h).
#include "plan/run_json.h"

#include <ctime>

#include "core/time_stamp.h"
#include "plan/run_plan.h"

namespace kjudge::plan {

nlohmann::json run_json_header(const std::string& command, const RunOptions& a, std::size_t jobs,
                               const std::string& fingerprint) {
  nlohmann::json j = {
      {"schema_version", 1},
      {"kind", "kjudge-run"},
      {"command", command},
      {"kjudge_version", KJUDGE_VERSION},
      {"problems", a.problems},
      {"solutions", a.solutions},
      {"ks", a.ks},
      {"jobs", jobs},
      {"jobs_fingerprint", fingerprint},
      {"started_at", iso8601_utc(std::time(nullptr))},
      {"options", {{"benchmark", a.benchmark}, {"runs", a.runs}, {"warmups", a.warmups}}}};
  // --repeat and --sanitize change what a verdict means: part of the run's identity on --resume.
  if (const nlohmann::json checks = run_checks(a); !checks.is_null()) {
    j["checks"] = checks;
    j["options"]["sanitize_timeout_factor"] = a.sanitize_timeout;
    if (!a.sanitizer.empty()) j["options"]["sanitizer"] = a.sanitizer;
  }
  return j;
}

}  // namespace kjudge::plan
