#include "core/html_escape.h"

#include <nlohmann/json.hpp>

namespace kjudge {

std::string html_escape(std::string_view text) {
  // Through nlohmann's UTF-8 check first: invalid sequences become U+FFFD.
  const std::string clean = nlohmann::json(std::string(text))
                                .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  const std::string valid = nlohmann::json::parse(clean).get<std::string>();
  std::string out;
  out.reserve(valid.size() + valid.size() / 8);
  for (char c : valid) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      case '\0':
        // A NUL is no character of a page: the replacement character shows where it was.
        out += "\xEF\xBF\xBD";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace kjudge
