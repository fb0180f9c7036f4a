#include "core/shell_quote.h"

#include <algorithm>

namespace kjudge {

std::string shell_quote(std::string_view s) {
  auto plain = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("_./=:,+@%-").find(c) != std::string_view::npos;
  };
  if (!s.empty() && std::all_of(s.begin(), s.end(), plain)) return std::string(s);
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace kjudge
