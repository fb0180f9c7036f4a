// Splitting a TritonBench operator file into its reference code and its test code.
// Declared, and explained, in triton/data/split.h.
#include "triton/data/split.h"

#include <vector>

#include "core/input_error.h"

namespace kjudge::triton {
namespace {

// A line, not a substring: a longer run of '#' (or one with text after it) is a comment of the
// operator's own, and one real file has a 103-'#' banner that must not count.
bool is_separator(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line.size() == kTritonSeparatorWidth &&
         line.find_first_not_of('#') == std::string_view::npos;
}

}  // namespace

SplitOperatorFile split_operator_file(std::string_view content, const SplitSource& where) {
  std::vector<size_t> starts;  // offsets of separator lines
  std::vector<size_t> ends;    // offsets just past their newline (or the end of content)
  size_t pos = 0;
  while (pos <= content.size()) {
    size_t nl = content.find('\n', pos);
    size_t end = nl == std::string_view::npos ? content.size() : nl;
    if (is_separator(content.substr(pos, end - pos))) {
      starts.push_back(pos);
      ends.push_back(nl == std::string_view::npos ? content.size() : nl + 1);
    }
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  if (starts.size() != 1) {
    throw InputError(
        where.file, where.line, where.field,
        where.entry + ": " +
            (starts.empty() ? "no separator line of 146 '#' between reference and test code"
                            : std::to_string(starts.size()) +
                                  " separator lines of 146 '#' (expected exactly one)"));
  }
  return {std::string(content.substr(0, starts[0])), std::string(content.substr(ends[0]))};
}

}  // namespace kjudge::triton
