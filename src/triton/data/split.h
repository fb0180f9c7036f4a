#pragma once
// TritonBench operator files hold the reference code, then a line of exactly 146 '#', then the
// test code. Upstream splits on that string; the judge insists on exactly one such line, so a
// file that lost its separator (or gained a second) is refused instead of silently running the
// test code as part of the candidate.
#include <string>
#include <string_view>

namespace kjudge::triton {

inline constexpr size_t kTritonSeparatorWidth = 146;

struct SplitOperatorFile {
  std::string reference_code;  // everything before the separator line
  std::string test_code;       // everything after it
};

// `where` names the entry for the InputError (file, line, field) thrown on zero or several
// separator lines.
struct SplitSource {
  std::string file;
  int line = 0;
  std::string field;
  std::string entry;  // the operator, e.g. "G/add_example.py"
};

SplitOperatorFile split_operator_file(std::string_view content, const SplitSource& where);

}  // namespace kjudge::triton
