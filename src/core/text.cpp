#include "core/text.h"

#include <cctype>

namespace kjudge {

namespace {

std::string trim_set(std::string_view s, std::string_view set) {
  const std::size_t b = s.find_first_not_of(set);
  if (b == std::string_view::npos) return "";
  return std::string(s.substr(b, s.find_last_not_of(set) - b + 1));
}

}  // namespace

std::string trim(std::string_view s) { return trim_set(s, " \t\n\v\f\r"); }

std::string trim_blanks(std::string_view s) { return trim_set(s, " \t"); }

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace kjudge
