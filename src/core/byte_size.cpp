#include "core/byte_size.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace kjudge {

std::optional<std::uint64_t> parse_byte_size(const std::string& text) {
  std::size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  const std::size_t num_start = i;
  bool dot = false;
  while (i < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[i])) || (text[i] == '.' && !dot))) {
    dot = dot || text[i] == '.';
    ++i;
  }
  if (i == num_start) return std::nullopt;
  const double number = std::strtod(text.substr(num_start, i - num_start).c_str(), nullptr);
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  std::string unit;
  for (; i < text.size(); ++i) {
    if (std::isspace(static_cast<unsigned char>(text[i]))) break;
    unit += static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
  }
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  if (i != text.size()) return std::nullopt;
  double scale = 0;
  if (unit.empty() || unit == "b") scale = 1;
  const char* prefixes = "kmgt";
  for (int p = 0; p < 4; ++p) {
    const std::string c(1, prefixes[p]);
    if (unit == c || unit == c + "b" || unit == c + "ib") scale = std::pow(1024.0, p + 1);
  }
  if (scale == 0) return std::nullopt;
  const double bytes = number * scale;
  if (!(bytes >= 0) || bytes >= 18e18) return std::nullopt;
  return static_cast<std::uint64_t>(std::llround(bytes));
}

std::string format_byte_size(std::uint64_t bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  if (u == 0 || v == std::floor(v))
    std::snprintf(buf, sizeof buf, "%.0f %s", v, units[u]);
  else
    std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

}  // namespace kjudge
