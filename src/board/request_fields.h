#pragma once
// Reading a request's fields with their types and ranges checked. A bad field throws BadField,
// which the API answers 400 {"error": why, "field": name}: never a 500 with a JSON library's
// own words.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kjudge::board {

class BadField : public std::runtime_error {
 public:
  BadField(std::string field, const std::string& why)
      : std::runtime_error(field + ": " + why), field_(std::move(field)) {}
  const std::string& field() const { return field_; }

 private:
  std::string field_;
};

// obj[field] as a string; `fallback` when absent (or null).
std::string string_field(const nlohmann::json& obj, const std::string& field,
                         const std::string& fallback);
std::optional<std::string> optional_string(const nlohmann::json& obj, const std::string& field);
std::vector<std::string> string_list_field(const nlohmann::json& obj, const std::string& field,
                                           const std::vector<std::string>& fallback);
// An integer in [lo, hi]: a float (1e300), a string or a number out of range is refused.
std::int64_t integer_field(const nlohmann::json& obj, const std::string& field, std::int64_t lo,
                           std::int64_t hi);
// A decimal id from a path or query (digits only, fits in int64 and > 0).
std::int64_t id_text(const std::string& text, const std::string& field);
// Seconds as a query parameter: a finite number in [0, max].
double seconds_text(const std::string& text, const std::string& field, double max);
// A leaderboard's name: 1–64 of [A-Za-z0-9._-], not starting with '.', so that it is one path
// segment of its URLs and prints as itself.
void check_board_name(const std::string& name);

}  // namespace kjudge::board
