#include "report/html_text.h"

#include <fmt/format.h>

namespace kjudge::report {

namespace {

// Back to the start of the UTF-8 character holding byte i.
std::size_t char_start(std::string_view s, std::size_t i) {
  while (i > 0 && i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) --i;
  return i;
}

}  // namespace

std::string script_json(const nlohmann::json& j) {
  const std::string s = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '<':
        out += "\\u003c";
        break;
      case '>':
        out += "\\u003e";
        break;
      case '&':
        out += "\\u0026";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string head_tail(std::string_view text, std::size_t limit) {
  if (text.size() <= limit) return std::string(text);
  const std::size_t head = char_start(text, limit / 2);
  const std::size_t tail = char_start(text, text.size() - (limit - limit / 2));
  return std::string(text.substr(0, head)) +
         fmt::format("\n[… {} bytes not shown …]\n", tail - head) + std::string(text.substr(tail));
}

}  // namespace kjudge::report
