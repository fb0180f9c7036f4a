#pragma once
// Ranges for numeric command-line options. CLI::Range lets NaN through (every comparison with
// it is false), so a range here also requires a finite number.
#include <CLI/CLI.hpp>
#include <cmath>
#include <string>

namespace kjudge {

inline CLI::Validator finite_range(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        double v = 0;
        if (!CLI::detail::lexical_cast(text, v) || !std::isfinite(v) || v < lo || v > hi)
          return "value " + text + " is not a number in [" + CLI::detail::to_string(lo) + " - " +
                 CLI::detail::to_string(hi) + "]";
        return "";
      },
      "FINITE in [" + CLI::detail::to_string(lo) + " - " + CLI::detail::to_string(hi) + "]");
}

}  // namespace kjudge
