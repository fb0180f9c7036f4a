#pragma once
// Trimming and lower-casing text, one definition for every folder (each had its own, and a unity
// build of the library puts them side by side).
#include <string>
#include <string_view>

namespace kjudge {

// Without the leading and trailing white space (C's isspace: space, \t, \n, \v, \f, \r).
std::string trim(std::string_view s);

// Without the leading and trailing spaces and tabs only: a line's own text, its end kept.
std::string trim_blanks(std::string_view s);

// In ASCII lower case (C's tolower, byte by byte).
std::string lower(std::string s);

}  // namespace kjudge
