#pragma once
// Why a Triton candidate failed, in the classes of the TritonBench paper (arXiv 2502.14752):
// syntax; attribute and type; name and reference; runtime and logic; and result mismatches (the
// code ran, the outputs differ). A pure function of what the runner reported, so the same report
// always lands in the same class; the table and the reasons for its ambiguous rows are in
// docs/triton.md, "Failure classes".
#include <array>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kjudge::triton {

enum class FailureClass {
  none,             // not a failure: no exception, no mismatch
  syntax,           // the code is not valid Python, or not valid Triton (unsupported construct)
  attribute_type,   // a missing attribute, a wrong type or call signature
  name_reference,   // a name, module or key that does not resolve
  runtime_logic,    // everything that fails while running: values, shapes, CUDA, timeouts, crashes
  result_mismatch,  // ran to the end, but the outputs do not match the reference's
};
inline constexpr int kFailureClassCount = 6;

// "none", "syntax", "attribute_type", "name_reference", "runtime_logic", "result_mismatch"
std::string_view failure_class_name(FailureClass c);
// The paper's words: "Syntax", "Attribute and type", "Name and reference", "Runtime and logic",
// "Result mismatch" ("None" for none).
std::string_view failure_class_title(FailureClass c);

// What the runner says about one candidate run.
struct RunnerErrorReport {
  std::string stage;  // where it stopped: "import", "call", "compare", ...; informative only
  // The Python class of the exception, qualified or not ("NameError", "builtins.NameError",
  // "triton.compiler.errors.CompilationError"). Also the judge's own words for a run that raised
  // nothing: "timeout" (the wall clock), "crash" / "signal" / "SIGSEGV" (killed by a signal).
  // Empty when there was no exception, or when the runner could not name it (the message, e.g. a
  // traceback, is then searched for the class).
  std::string exception_type;
  std::string message;    // str(exception), or a traceback
  bool mismatch = false;  // the outputs were compared and differ (shape, dtype, values, NaN)
};

struct FailureClassification {
  FailureClass cls = FailureClass::none;
  // The exception class the decision rests on, unqualified: the wrapped one for a Triton
  // CompilationError ("NameError"), or "timeout", "crash", "mismatch"; empty for none.
  std::string cause;
  std::string rule;  // one line saying which rule fired, for reports and for doubting the table
};

FailureClassification classify_failure(const RunnerErrorReport& report);

// The class of a judged candidate from its verdict in `kjudge triton eval` (docs/triton.md):
// "pass" → none; "mismatch" and "timed_mismatch" (a timed call's output differs) → result
// mismatch; "call_error" → classify_failure(error);
// "timeout" and "crash" → runtime and logic; "refused" (a malformed or forged report) → runtime
// and logic, cause "refused". nullopt for "reference_failed", "reference_unstable",
// "no_output", "judge_error" and "excluded" (the operator's own test is broken, so it is not
// run), which say nothing about the candidate and count in no class, and for an unknown verdict.
std::optional<FailureClassification> classify_triton_verdict(std::string_view verdict,
                                                             const RunnerErrorReport& error);

// Failures per difficulty (TritonBench's 1..5): counts per class, so a report can show where a
// model's errors sit as the operators get harder. Passing runs count as `none`, so each row's
// sum is the number of runs at that difficulty.
struct FailureCounts {
  std::map<int, std::array<int, kFailureClassCount>> by_difficulty;
  std::array<int, kFailureClassCount> total{};

  void add(int difficulty, FailureClass c);
  int count(int difficulty, FailureClass c) const;
  // {"total": {"syntax": n, ...}, "by_difficulty": {"1": {...}, ...}}: every class present,
  // zeros included, so tables line up.
  nlohmann::json to_json() const;
};

FailureCounts count_failures(const std::vector<std::pair<int, FailureClass>>& runs);

}  // namespace kjudge::triton
