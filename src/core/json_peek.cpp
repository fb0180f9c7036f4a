#include "core/json_peek.h"

#include <cctype>
#include <charconv>

namespace kjudge {

namespace {

// Walks the object's top level; calls `on_value(key, value_start)` for each member and stops
// when it returns true. Strings are skipped with their escapes; nesting is counted.
template <class F>
void walk_top_level(std::string_view t, F on_value) {
  std::size_t i = t.find_first_not_of(" \t\r\n");
  if (i == std::string_view::npos || t[i] != '{') return;
  int depth = 0;
  bool expect_key = false;
  std::string key;
  auto skip_string = [&](std::size_t k, std::string* out) {
    for (++k; k < t.size(); ++k) {
      if (t[k] == '\\') {
        if (out && k + 1 < t.size()) *out += t[k + 1];
        ++k;
        continue;
      }
      if (t[k] == '"') return k + 1;
      if (out) *out += t[k];
    }
    return t.size();
  };
  for (; i < t.size();) {
    const char c = t[i];
    if (c == '"') {
      if (depth == 1 && expect_key) {
        key.clear();
        i = skip_string(i, &key);
        const std::size_t colon = t.find_first_not_of(" \t\r\n", i);
        if (colon == std::string_view::npos || t[colon] != ':') return;
        const std::size_t value = t.find_first_not_of(" \t\r\n", colon + 1);
        if (value == std::string_view::npos) return;
        if (on_value(key, value)) return;
        expect_key = false;
        i = value;
        continue;
      }
      i = skip_string(i, nullptr);
      continue;
    }
    if (c == '{' || c == '[') {
      ++depth;
      expect_key = depth == 1;
    } else if (c == '}' || c == ']') {
      if (--depth <= 0) return;
    } else if (c == ',' && depth == 1) {
      expect_key = true;
    }
    ++i;
  }
}

}  // namespace

std::optional<std::string> peek_string_field(std::string_view text, std::string_view key,
                                             std::size_t max_chars) {
  std::optional<std::string> out;
  walk_top_level(text, [&](const std::string& k, std::size_t v) {
    if (k != key) return false;
    if (text[v] != '"') return true;
    std::string s;
    for (std::size_t i = v + 1; i < text.size() && text[i] != '"' && s.size() < max_chars; ++i) {
      if (text[i] == '\\' && i + 1 < text.size()) ++i;
      s += text[i];
    }
    out = std::move(s);
    return true;
  });
  return out;
}

std::optional<long long> peek_int_field(std::string_view text, std::string_view key) {
  std::optional<long long> out;
  walk_top_level(text, [&](const std::string& k, std::size_t v) {
    if (k != key) return false;
    long long n = 0;
    const auto [end, err] = std::from_chars(text.data() + v, text.data() + text.size(), n);
    if (err == std::errc() && end != text.data() + v) out = n;
    return true;
  });
  return out;
}

}  // namespace kjudge
