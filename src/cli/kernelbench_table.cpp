// The KernelBench table (cli/kernelbench_table.h).
#include "cli/kernelbench_table.h"

#include <fmt/format.h>

#include <string>

namespace kjudge {
namespace {

std::string rate(const nlohmann::ordered_json& v) {
  return v.is_null() ? "-" : fmt::format("{:.1f}%", 100 * v.get<double>());
}

std::string geo(const nlohmann::ordered_json& s) {
  return s.is_null()
             ? "-"
             : fmt::format("{:.3f} ({})", s["geomean"].get<double>(), s["n"].get<std::size_t>());
}

}  // namespace

void print_kernelbench_table(const nlohmann::ordered_json& summary) {
  fmt::print("{:<8} {:>5} {:>8} {:>8} {:>14} {:>14} {:>7} {:>7} {:>7} {:>7}\n", "LEVEL", "SOLS",
             "COMPILED", "CORRECT", "SPEEDUP", "VS COMPILE", "FAST_1", "FAST_1C", "FAST_2",
             "HACKS");
  auto row = [](const std::string& name, const nlohmann::ordered_json& t) {
    fmt::print("{:<8} {:>5} {:>8} {:>8} {:>14} {:>14} {:>7} {:>7} {:>7} {:>7}\n", name,
               t["solutions"].get<std::size_t>(), rate(t["compiled_rate"]), rate(t["correct_rate"]),
               geo(t["speedup_eager"]), geo(t["speedup_compile"]), rate(t["fast_p"]["1"]),
               rate(t["fast_p_confident"]["1"]), rate(t["fast_p"]["2"]),
               t["hacks_found"].get<std::size_t>());
  };
  for (auto it = summary["levels"].begin(); it != summary["levels"].end(); ++it)
    row(it.key(), it.value());
  if (summary["levels"].size() > 1) row("all", summary["all"]);
  std::string verdicts;
  for (auto it = summary["all"]["verdicts"].begin(); it != summary["all"]["verdicts"].end(); ++it)
    verdicts += fmt::format("{}{} {}", verdicts.empty() ? "" : ", ", it.value().get<std::size_t>(),
                            it.key());
  fmt::print("verdicts: {}\n", verdicts);
  fmt::print(
      "rates over one sample per problem (sample 0), charged results only; speedup = geometric "
      "mean (count) of the correct ones; FAST_1C = faster than 1x with the interval's lower "
      "bound; HACKS = solutions with a hack finding\n");
}

}  // namespace kjudge
