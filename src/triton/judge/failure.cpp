// The failure classes of Triton candidates (why a call or an output went wrong).
// Declared, and explained, in triton/judge/failure.h.
#include "triton/judge/failure.h"

#include <cctype>
#include <optional>
#include <string_view>

namespace kjudge::triton {
namespace {

using C = FailureClass;

// The paper's classes, by Python exception class (unqualified). Ambiguous rows are explained in
// docs/triton.md ("Failure classes"); anything absent falls into runtime and logic, the paper's
// catch-all, with its name kept as the cause so nothing is hidden.
std::optional<FailureClass> class_of(std::string_view name) {
  struct Row {
    std::string_view name;
    FailureClass cls;
  };
  static constexpr Row kTable[] = {
      {"SyntaxError", C::syntax},
      {"IndentationError", C::syntax},
      {"TabError", C::syntax},
      // Python Triton's frontend does not accept (a `break`, a lambda, a try in a kernel):
      // the code is not valid Triton, which is what "syntax" means for a Triton kernel.
      {"UnsupportedLanguageConstruct", C::syntax},
      {"AttributeError", C::attribute_type},
      {"TypeError", C::attribute_type},
      // Triton's own type error (triton.language.semantic): invalid operand types.
      {"IncompatibleTypeErrorImpl", C::attribute_type},
      {"NameError", C::name_reference},
      {"UnboundLocalError", C::name_reference},
      {"ImportError", C::name_reference},
      {"ModuleNotFoundError", C::name_reference},
      // In generated kernels a KeyError is a reference to something that is not there: an
      // autotune key naming a missing argument, a meta-parameter absent from a Config.
      {"KeyError", C::name_reference},
      {"RuntimeError", C::runtime_logic},
      {"AssertionError", C::runtime_logic},
      {"CompileTimeAssertionFailure", C::runtime_logic},
      {"ValueError", C::runtime_logic},
      {"IndexError", C::runtime_logic},
      {"ZeroDivisionError", C::runtime_logic},
      {"OverflowError", C::runtime_logic},
      {"FloatingPointError", C::runtime_logic},
      {"ArithmeticError", C::runtime_logic},
      {"NotImplementedError", C::runtime_logic},
      {"RecursionError", C::runtime_logic},
      {"MemoryError", C::runtime_logic},
      {"OutOfMemoryError", C::runtime_logic},
      {"OutOfResources", C::runtime_logic},
      {"TimeoutError", C::runtime_logic},
  };
  for (const Row& r : kTable)
    if (r.name == name) return r.cls;
  return std::nullopt;
}

// Triton wraps whatever the code generator raised in a CompilationError whose message ends with
// repr() of the original exception: the class that matters is inside the message.
bool is_wrapper(std::string_view name) { return name == "CompilationError"; }

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string trim(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return "";
  return std::string(s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1));
}

// "builtins.NameError", "<class 'NameError'>", "NameError:" → "NameError"
std::string unqualified(std::string_view type) {
  std::string t = trim(type);
  if (t.starts_with("<class '") && t.ends_with("'>")) t = t.substr(8, t.size() - 10);
  while (!t.empty() && !ident_char(t.back())) t.pop_back();
  size_t start = t.size();
  while (start > 0 && ident_char(t[start - 1])) --start;
  return t.substr(start);
}

// The last known exception class written as `Name(` or `Name:` in the text: the repr at the end
// of a CompilationError, or the last line of a traceback. The last one wins because the
// source excerpt that Triton prints first may itself mention exception classes.
std::string last_named_class(std::string_view text) {
  std::string found;
  size_t i = 0;
  while (i < text.size()) {
    if (!ident_char(text[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < text.size() && ident_char(text[j])) ++j;
    const std::string_view word = text.substr(i, j - i);
    if (j < text.size() && (text[j] == '(' || text[j] == ':') && class_of(word)) found = word;
    i = j;
  }
  return found;
}

bool lower_equals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != b[i]) return false;
  return true;
}

bool is_timeout(std::string_view type) {
  return lower_equals(type, "timeout") || type == "TimeoutExpired" || type == "TimeoutError";
}

// "crash", "signal", "signal 11", or a signal's name as the judge saw it (SIGSEGV, SIGKILL).
bool is_crash(std::string_view type) {
  if (lower_equals(type, "crash") || lower_equals(type, "signal")) return true;
  if (type.size() > 7 && lower_equals(type.substr(0, 7), "signal ")) return true;
  if (type.size() <= 3 || !type.starts_with("SIG")) return false;
  for (char c : type.substr(3))
    if (!std::isupper(static_cast<unsigned char>(c))) return false;
  return true;
}

// A named class, with the message consulted where the class alone is ambiguous.
FailureClassification by_class(const std::string& name, const std::string& message,
                               const std::string& how) {
  if (is_wrapper(name)) {
    const std::string inner = last_named_class(message);
    if (inner.empty() || is_wrapper(inner))
      return {C::runtime_logic, name,
              how + name + " without a recognisable wrapped exception: the catch-all"};
    FailureClassification c = by_class(inner, message, how + name + " wrapping ");
    return c;
  }
  // Triton before 3.0 reported an undefined name inside a kernel as ValueError("x is not
  // defined") (code_generator.get_value); it is a name error whatever class carries it.
  if (name == "ValueError" && message.find(" is not defined") != std::string::npos)
    return {C::name_reference, name, how + "ValueError saying 'is not defined' (a name error)"};
  if (std::optional<FailureClass> c = class_of(name)) return {*c, name, how + name};
  return {C::runtime_logic, name, how + name + " (not in the table: the catch-all)"};
}

}  // namespace

std::string_view failure_class_name(FailureClass c) {
  switch (c) {
    case C::none:
      return "none";
    case C::syntax:
      return "syntax";
    case C::attribute_type:
      return "attribute_type";
    case C::name_reference:
      return "name_reference";
    case C::runtime_logic:
      return "runtime_logic";
    case C::result_mismatch:
      return "result_mismatch";
  }
  return "none";
}

std::string_view failure_class_title(FailureClass c) {
  switch (c) {
    case C::none:
      return "None";
    case C::syntax:
      return "Syntax";
    case C::attribute_type:
      return "Attribute and type";
    case C::name_reference:
      return "Name and reference";
    case C::runtime_logic:
      return "Runtime and logic";
    case C::result_mismatch:
      return "Result mismatch";
  }
  return "None";
}

FailureClassification classify_failure(const RunnerErrorReport& r) {
  const std::string type = trim(r.exception_type);
  const std::string stage = trim(r.stage);
  if (!type.empty()) {
    // The judge's words for runs that raised nothing it could name; checked before the table
    // so that Python's own TimeoutError reads the same as the judge's wall clock.
    if (is_timeout(type) || is_timeout(unqualified(type)))
      return {C::runtime_logic, "timeout", "the run timed out"};
    if (is_crash(type)) return {C::runtime_logic, "crash", "the process died (" + type + ")"};
    const std::string name = unqualified(type);
    if (name.empty())
      return {C::runtime_logic, type, "exception type '" + type + "' names no class"};
    return by_class(name, r.message, "");
  }
  if (lower_equals(stage, "timeout")) return {C::runtime_logic, "timeout", "the run timed out"};
  if (lower_equals(stage, "crash")) return {C::runtime_logic, "crash", "the process died"};
  // No exception: the outputs were compared. A mismatch of any kind (values, shape, dtype,
  // NaN) is its own class, as in the paper: the code ran.
  if (r.mismatch || lower_equals(stage, "compare"))
    return {C::result_mismatch, "mismatch", "the outputs differ from the reference's"};
  if (trim(r.message).empty()) return {C::none, "", "no exception and no mismatch"};
  // A failure the runner could not name: a traceback's last line still says which class.
  const std::string named = last_named_class(r.message);
  if (!named.empty()) return by_class(named, r.message, "no class given; the message names ");
  return {C::runtime_logic, "", "a failure with no exception class: the catch-all"};
}

std::optional<FailureClassification> classify_triton_verdict(std::string_view verdict,
                                                             const RunnerErrorReport& error) {
  if (verdict == "pass") return FailureClassification{C::none, "", "passed"};
  if (verdict == "mismatch")
    return FailureClassification{C::result_mismatch, "mismatch",
                                 "the outputs differ from the reference's"};
  if (verdict == "timed_mismatch")
    return FailureClassification{C::result_mismatch, "timed_mismatch",
                                 "a timed call's output differs from the reference's"};
  // Its outputs were right; its timing was not what the GPU did: the candidate's doing, at run
  // time.
  if (verdict == "timing_refused")
    return FailureClassification{C::runtime_logic, "timing_refused",
                                 "the profiler's record contradicts the timed calls' times"};
  if (verdict == "call_error") return classify_failure(error);
  if (verdict == "timeout")
    return FailureClassification{C::runtime_logic, "timeout", "the run timed out"};
  if (verdict == "crash")
    return FailureClassification{C::runtime_logic, "crash", "the process died or was stopped"};
  // A report the judge refused came from a process that ran the candidate's code and then
  // wrote something malformed or forged: the candidate's doing, at run time.
  if (verdict == "refused")
    return FailureClassification{C::runtime_logic, "refused", "the run's report was refused"};
  return std::nullopt;
}

void FailureCounts::add(int difficulty, FailureClass c) {
  by_difficulty[difficulty][static_cast<int>(c)] += 1;
  total[static_cast<int>(c)] += 1;
}

int FailureCounts::count(int difficulty, FailureClass c) const {
  auto it = by_difficulty.find(difficulty);
  return it == by_difficulty.end() ? 0 : it->second[static_cast<int>(c)];
}

nlohmann::json FailureCounts::to_json() const {
  auto row = [](const std::array<int, kFailureClassCount>& counts) {
    nlohmann::json j = nlohmann::json::object();
    for (int i = 0; i < kFailureClassCount; ++i)
      j[std::string(failure_class_name(static_cast<FailureClass>(i)))] = counts[i];
    return j;
  };
  nlohmann::json by = nlohmann::json::object();
  for (const auto& [d, counts] : by_difficulty) by[std::to_string(d)] = row(counts);
  return {{"total", row(total)}, {"by_difficulty", by}};
}

FailureCounts count_failures(const std::vector<std::pair<int, FailureClass>>& runs) {
  FailureCounts out;
  for (const auto& [d, c] : runs) out.add(d, c);
  return out;
}

}  // namespace kjudge::triton
