#pragma once
// RFC 4180 text: a field is quoted when it holds a comma, a double quote, CR or LF, with its
// quotes doubled; records end with CRLF. What pandas, R and spreadsheets read back as written.
#include <string>
#include <string_view>
#include <vector>

namespace kjudge::csv {

// One field, quoted where RFC 4180 requires it.
std::string field(std::string_view text);

// Fields joined by commas, ended by CRLF.
std::string record(const std::vector<std::string>& fields);

}  // namespace kjudge::csv
