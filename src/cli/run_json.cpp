#include "cli/run_json.h"

#include <ctime>

namespace kjudge {

namespace {

std::string iso_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace

nlohmann::json run_json_header(const std::string& command, const RunArgs& a, std::size_t jobs,
                               const std::string& fingerprint) {
  return {{"schema_version", 1},
          {"kind", "kjudge-run"},
          {"command", command},
          {"kjudge_version", KJUDGE_VERSION},
          {"problems", a.problems},
          {"solutions", a.solutions},
          {"ks", a.ks},
          {"jobs", jobs},
          {"jobs_fingerprint", fingerprint},
          {"started_at", iso_now()},
          {"options", {{"benchmark", a.benchmark}, {"runs", a.runs}, {"warmups", a.warmups}}}};
}

}  // namespace kjudge
