// The exit code of a finished run (plan/run_exit.h).
#include "plan/run_exit.h"

#include "core/exit_codes.h"

namespace kjudge::plan {

int finished_run_exit_code(const std::string& command, const nlohmann::json& summary,
                           bool load_errors) {
  if (!summary["judge_errors"].empty()) return exit_code::judge_error;
  if (load_errors) return exit_code::findings;
  if (command == "validate" && !summary["failures"].empty()) return exit_code::findings;
  return exit_code::ok;
}

}  // namespace kjudge::plan
