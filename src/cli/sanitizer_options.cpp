// The compute-sanitizer options (cli/sanitizer_options.h).
#include "cli/sanitizer_options.h"

#include "eval/sanitizer.h"

namespace kjudge {

void add_sanitizer_options(CLI::App* c, std::vector<std::string>& tools, bool& memcheck,
                           std::string& sanitizer) {
  c->add_option("--sanitize", tools,
                "Run each passing test once more under compute-sanitizer with these tools "
                "(memcheck, racecheck, initcheck, synccheck; comma-separated): errors it reports "
                "fail the solution (sanitizer_error)")
      ->delimiter(',')
      ->check(CLI::IsMember(sanitizer_tools()));
  c->add_flag("--memcheck", memcheck, "The same as --sanitize memcheck");
  c->add_option("--sanitizer", sanitizer,
                "The compute-sanitizer binary (default: $KJUDGE_COMPUTE_SANITIZER, else the "
                "toolkit's, beside nvcc)");
}

}  // namespace kjudge
