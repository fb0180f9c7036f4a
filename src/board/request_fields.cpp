#include "board/request_fields.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace kjudge::board {

using nlohmann::json;

namespace {

const json* find(const json& obj, const std::string& field) {
  auto it = obj.find(field);
  return it == obj.end() || it->is_null() ? nullptr : &*it;
}

}  // namespace

std::string string_field(const json& obj, const std::string& field, const std::string& fallback) {
  return optional_string(obj, field).value_or(fallback);
}

std::optional<std::string> optional_string(const json& obj, const std::string& field) {
  const json* j = find(obj, field);
  if (!j) return std::nullopt;
  if (!j->is_string()) throw BadField(field, "must be a string");
  return j->get<std::string>();
}

std::vector<std::string> string_list_field(const json& obj, const std::string& field,
                                           const std::vector<std::string>& fallback) {
  const json* j = find(obj, field);
  if (!j) return fallback;
  if (!j->is_array()) throw BadField(field, "must be a list of strings");
  std::vector<std::string> out;
  for (const auto& e : *j) {
    if (!e.is_string() || e.get<std::string>().empty())
      throw BadField(field, "must be a list of non-empty strings");
    out.push_back(e.get<std::string>());
  }
  return out;
}

std::int64_t integer_field(const json& obj, const std::string& field, std::int64_t lo,
                           std::int64_t hi) {
  const json* j = find(obj, field);
  if (!j) throw BadField(field, "is missing");
  std::int64_t n = 0;
  if (j->is_number_unsigned()) {
    const auto u = j->get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(hi)) throw BadField(field, "is out of range");
    n = static_cast<std::int64_t>(u);
  } else if (j->is_number_integer()) {
    n = j->get<std::int64_t>();
  } else {
    throw BadField(field, "must be an integer");
  }
  if (n < lo || n > hi)
    throw BadField(field, "must be between " + std::to_string(lo) + " and " + std::to_string(hi));
  return n;
}

std::int64_t id_text(const std::string& text, const std::string& field) {
  if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos)
    throw BadField(field, "must be a decimal id below 10^18");
  const std::int64_t n = std::stoll(text);
  if (n <= 0) throw BadField(field, "must be a positive id");
  return n;
}

double seconds_text(const std::string& text, const std::string& field, double max) {
  errno = 0;
  char* end = nullptr;
  const double s = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno != 0 || !std::isfinite(s) || s < 0)
    throw BadField(field, "must be a number of seconds, 0 or more");
  return std::min(s, max);
}

void check_board_name(const std::string& name) {
  if (name.empty() || name.size() > 64 || name[0] == '.' ||
      name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") !=
          std::string::npos)
    throw BadField("name", "must be 1 to 64 of A-Z a-z 0-9 . _ - (not starting with .)");
}

}  // namespace kjudge::board
