#include "core/popcorn_headers.h"

#include <cctype>
#include <sstream>

#include "core/text.h"

namespace kjudge {

namespace {

std::string trim(const std::string& s) {
  const std::size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
}

}  // namespace

PopcornHeaders read_popcorn_headers(const std::string& text) {
  PopcornHeaders h;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const std::string t = trim(line);
    std::string rest;
    for (const char* prefix : {"#!POPCORN", "//!POPCORN"}) {
      const std::string p = prefix;
      if (t.size() > p.size() && lower(t.substr(0, p.size())) == lower(p) &&
          std::isspace(static_cast<unsigned char>(t[p.size()])))
        rest = trim(t.substr(p.size()));
    }
    if (rest.empty()) continue;
    const std::size_t sp = rest.find_first_of(" \t");
    const std::string key = lower(rest.substr(0, sp));
    const std::string value = sp == std::string::npos ? "" : trim(rest.substr(sp));
    if (key == "leaderboard" && !value.empty()) {
      h.leaderboard = value;
    } else if ((key == "gpu" || key == "gpus") && !value.empty()) {
      std::string item;
      std::istringstream list(value);
      while (std::getline(list, item, ','))
        for (std::istringstream words(item); words >> item;) h.gpus.push_back(item);
    } else {
      h.unknown.push_back(t);
    }
  }
  return h;
}

}  // namespace kjudge
