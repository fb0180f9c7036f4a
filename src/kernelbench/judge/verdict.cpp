// Verdict names and which verdicts are charged.
// Declared, and explained, in kernelbench/judge/verdict.h.
#include "kernelbench/judge/verdict.h"

#include "core/enum_names.h"

namespace kjudge::kernelbench {

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::correct:
      return "correct";
    case Verdict::incorrect:
      return "incorrect";
    case Verdict::timed_mismatch:
      return "timed_mismatch";
    case Verdict::runtime_error:
      return "runtime_error";
    case Verdict::compile_error:
      return "compile_error";
    case Verdict::hack:
      return "hack";
    case Verdict::timeout:
      return "timeout";
    case Verdict::crash:
      return "crash";
    case Verdict::refused:
      return "refused";
    case Verdict::reference_failed:
      return "reference_failed";
    case Verdict::env_error:
      return "env_error";
    case Verdict::judge_error:
      return "judge_error";
  }
  return "?";
}

std::optional<Verdict> verdict_from_name(std::string_view name) {
  return enum_from_name<Verdict>(name, verdict_name);
}

bool charged(Verdict v) {
  return v != Verdict::reference_failed && v != Verdict::env_error && v != Verdict::judge_error;
}

}  // namespace kjudge::kernelbench
