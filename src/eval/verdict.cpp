#include "eval/verdict.h"

#include <array>
#include <utility>

namespace kjudge {
namespace {

constexpr std::array<std::pair<Verdict, std::string_view>, 11> kNames{{
    {Verdict::pass, "pass"},
    {Verdict::build_error, "build_error"},
    {Verdict::build_timeout, "build_timeout"},
    {Verdict::test_fail, "test_fail"},
    {Verdict::test_timeout, "test_timeout"},
    {Verdict::crash, "crash"},
    {Verdict::sanitizer_error, "sanitizer_error"},
    {Verdict::source_reference_missing, "source_reference_missing"},
    {Verdict::invalid_solution, "invalid_solution"},
    {Verdict::skipped, "skipped"},
    {Verdict::judge_error, "judge_error"},
}};

}  // namespace

std::string_view to_string(Verdict v) {
  for (const auto& [verdict, name] : kNames)
    if (verdict == v) return name;
  return "unknown";
}

std::optional<Verdict> verdict_from_string(std::string_view s) {
  for (const auto& [verdict, name] : kNames)
    if (name == s) return verdict;
  return std::nullopt;
}

}  // namespace kjudge
