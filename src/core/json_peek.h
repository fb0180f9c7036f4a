#pragma once
// One top-level field of a JSON object read from its text without parsing the whole: for a
// record too large to parse (a solution line of 200 MB), the judge still finds whose it is.
#include <optional>
#include <string>
#include <string_view>

namespace kjudge {

// The value of `key` at the top level of the object in `text`: a string (unescaped for the
// simple escapes, at most `max_chars`) or an integer. nullopt when the text is no object, the
// key is absent or its value has another type.
std::optional<std::string> peek_string_field(std::string_view text, std::string_view key,
                                             std::size_t max_chars = 1024);
std::optional<long long> peek_int_field(std::string_view text, std::string_view key);

}  // namespace kjudge
