#pragma once
// What grading one solution can end in. The split that matters: verdicts that are the model's
// doing (counted in pass@k), skips (the machine cannot judge this problem; not counted), and
// judge_error (a fault of the judge or the machine; retried, reported apart, never counted).
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

namespace kjudge {

enum class Verdict {
  pass,
  build_error,
  build_timeout,
  test_fail,
  test_timeout,
  crash,
  // The test passed, and failed a check of --sanitize: compute-sanitizer (memcheck, racecheck …)
  // reported errors in a run of it (eval/sanitizer.h). Counted against the model.
  sanitizer_error,
  source_reference_missing,
  invalid_solution,  // paths that escape the workspace, no files, collides with a test file
  skipped,
  judge_error,
};

std::string_view to_string(Verdict v);
std::optional<Verdict> verdict_from_string(std::string_view s);

// Counted against (or for) the model in pass@k.
inline bool counts_for_model(Verdict v) {
  return v != Verdict::skipped && v != Verdict::judge_error;
}

}  // namespace kjudge

namespace kjudge {
// Lets test frameworks and streams print verdicts by name.
inline std::ostream& operator<<(std::ostream& os, Verdict v) { return os << to_string(v); }
}  // namespace kjudge
