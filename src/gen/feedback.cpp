#include "gen/feedback.h"

#include <sstream>

namespace kjudge {

std::string judge_feedback(const GradedSolution& g, const Problem& problem, std::size_t cap) {
  std::string what, log;
  switch (g.verdict) {
    case Verdict::pass:
      return "";
    case Verdict::build_error:
    case Verdict::build_timeout:
      what = g.verdict == Verdict::build_timeout ? "The build did not finish in time."
                                                 : "The build failed.";
      log = g.build.log;
      break;
    case Verdict::test_fail:
    case Verdict::test_timeout:
    case Verdict::crash:
      what = g.verdict == Verdict::test_timeout ? "The hidden tests did not finish in time."
             : g.verdict == Verdict::crash      ? "The program crashed under the hidden tests."
                                                : "The hidden tests failed.";
      log = g.test.log;
      break;
    case Verdict::sanitizer_error:
      // The tests passed; compute-sanitizer's report is what the model needs.
      what = "The hidden tests passed, but compute-sanitizer found errors in a run of them.";
      for (const SanitizerRecord& s : g.sanitizer)
        if (s.outcome == SanitizerOutcome::errors) {
          log = s.step.log;
          break;
        }
      break;
    default:
      what = "The solution was not accepted: " + g.detail;
      break;
  }
  std::string msg = what + "\n";
  if (!g.detail.empty() && g.verdict != Verdict::source_reference_missing &&
      g.verdict != Verdict::invalid_solution)
    msg += "Judge: " + redact_test_source(g.detail, problem) + "\n";
  if (!log.empty()) {
    std::string r = redact_test_source(log, problem);
    if (r.size() > cap) r = "[...]\n" + r.substr(r.size() - cap);
    msg += "\nOutput:\n```\n" + r + (r.empty() || r.back() == '\n' ? "" : "\n") + "```\n";
  }
  msg +=
      "\nFix the problem and answer again with the complete files, each in its own fenced "
      "block whose first line is a `// file: <path>` comment.";
  return msg;
}

}  // namespace kjudge
