#include "eval/source_refs.h"

#include <algorithm>
#include <array>
#include <cstddef>

namespace kjudge {
namespace {

enum class Family { none, c_like, python };

// Bytes that are not code. A literal may sit whole inside a match; the others never may.
// `opaque` covers what tree-sitter keeps as one token that a ref practically never equals: a
// directive's `#word` and an include path.
enum class SpanKind { comment, literal, opaque };

struct Span {
  std::size_t begin;
  std::size_t end;
  SpanKind kind;
};

bool is_ident(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_start(char c) { return is_ident(c) && !is_digit(c); }

Family family_of(std::string_view path) {
  // Extensions from GitHub linguist's C, C++, Cuda and Python entries, which ComputeEval's guess
  // draws on; ambiguous ones (.inc, .re) are left out. Case-sensitive, as there.
  static constexpr std::array<std::string_view, 21> kCLike{
      ".cu",  ".cuh", ".c",   ".h",   ".cc",  ".cpp", ".cxx", ".c++",  ".cp",  ".hh", ".hpp",
      ".hxx", ".h++", ".inl", ".ipp", ".tpp", ".tcc", ".txx", ".cppm", ".ixx", ".ino"};
  static constexpr std::array<std::string_view, 3> kPython{".py", ".pyi", ".pyw"};
  std::size_t slash = path.find_last_of('/');
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  std::size_t dot = name.find_last_of('.');
  if (dot == std::string_view::npos) return Family::none;
  std::string_view ext = name.substr(dot);
  if (std::find(kCLike.begin(), kCLike.end(), ext) != kCLike.end()) return Family::c_like;
  if (std::find(kPython.begin(), kPython.end(), ext) != kPython.end()) return Family::python;
  return Family::none;
}

// A "..." or '...' literal whose quote is at s[q]. Unterminated ones stop at the newline, as
// compilers and tree-sitter both recover there.
std::size_t scan_quoted(std::string_view s, std::size_t q) {
  const char quote = s[q];
  std::size_t j = q + 1;
  while (j < s.size()) {
    if (s[j] == '\\') {
      j += 2;  // also swallows a backslash-newline, which continues the literal
    } else if (s[j] == quote) {
      return j + 1;
    } else if (s[j] == '\n') {
      return j;
    } else {
      ++j;
    }
  }
  return s.size();
}

// R"delim( ... )delim" with its opening quote at s[q]; falls back to an ordinary literal when the
// delimiter is malformed, which is what a compiler would complain about anyway.
std::size_t scan_raw(std::string_view s, std::size_t q) {
  std::size_t open = q + 1;
  while (open < s.size() && open - q - 1 <= 16 && s[open] != '(') {
    char c = s[open];
    if (c == ' ' || c == ')' || c == '\\' || c == '\t' || c == '\n' || c == '"') break;
    ++open;
  }
  if (open >= s.size() || s[open] != '(') return scan_quoted(s, q);
  std::string closing = ")";
  closing.append(s.substr(q + 1, open - q - 1));
  closing.push_back('"');
  std::size_t close = s.find(closing, open + 1);
  return close == std::string_view::npos ? s.size() : close + closing.size();
}

std::size_t scan_line_comment(std::string_view s, std::size_t i) {
  std::size_t j = i + 2;
  while (j < s.size() && s[j] != '\n') {
    // A backslash before the newline continues a // comment onto the next line.
    if (s[j] == '\\' && j + 1 < s.size() && s[j + 1] == '\n') {
      j += 2;
    } else if (s[j] == '\\' && j + 2 < s.size() && s[j + 1] == '\r' && s[j + 2] == '\n') {
      j += 3;
    } else {
      ++j;
    }
  }
  return j;
}

bool is_c_literal_prefix(std::string_view w) {
  return w == "L" || w == "u" || w == "U" || w == "u8" || w == "R" || w == "LR" || w == "uR" ||
         w == "UR" || w == "u8R";
}

// tree-sitter lexes `#define` as one token and an include path as one node (system_lib_string,
// or a string_literal), so a ref never matches inside them. The rest of a directive is searched
// as code, macro bodies included (see the header).
std::size_t scan_directive(std::string_view s, std::size_t hash, std::vector<Span>& spans) {
  std::size_t j = hash + 1;
  while (j < s.size() && (s[j] == ' ' || s[j] == '\t')) ++j;
  std::size_t word_begin = j;
  while (j < s.size() && is_ident(s[j])) ++j;
  std::string_view word = s.substr(word_begin, j - word_begin);
  spans.push_back({hash, j, SpanKind::opaque});
  if (word != "include" && word != "include_next" && word != "import") return j;
  while (j < s.size() && (s[j] == ' ' || s[j] == '\t')) ++j;
  if (j >= s.size()) return j;
  std::size_t end = j;
  if (s[j] == '<') {
    end = s.find_first_of(">\n", j + 1);
    end = end == std::string_view::npos ? s.size() : (s[end] == '>' ? end + 1 : end);
  } else if (s[j] == '"') {
    end = scan_quoted(s, j);
  } else {
    return j;  // #include MACRO: code
  }
  spans.push_back({j, end, SpanKind::opaque});
  return end;
}

std::size_t scan_pp_number(std::string_view s, std::size_t i) {
  std::size_t j = i + 1;
  while (j < s.size()) {
    char c = s[j];
    if (is_ident(c) || c == '.') {
      ++j;
    } else if ((c == '+' || c == '-') &&
               (s[j - 1] == 'e' || s[j - 1] == 'E' || s[j - 1] == 'p' || s[j - 1] == 'P')) {
      ++j;
    } else if (c == '\'' && j + 1 < s.size() && is_ident(s[j + 1])) {
      j += 2;  // digit separator, 1'000'000: not a char literal
    } else {
      break;
    }
  }
  return j;
}

std::vector<Span> lex_c_like(std::string_view s) {
  std::vector<Span> spans;
  std::size_t i = 0;
  bool line_start = true;  // only blanks (or block comments) since the last newline
  while (i < s.size()) {
    const char c = s[i];
    if (c == '\n') {
      line_start = true;
      ++i;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      ++i;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      std::size_t end = scan_line_comment(s, i);
      spans.push_back({i, end, SpanKind::comment});
      i = end;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      std::size_t close = s.find("*/", i + 2);
      std::size_t end = close == std::string_view::npos ? s.size() : close + 2;
      spans.push_back({i, end, SpanKind::comment});
      i = end;
    } else if (c == '#' && line_start) {
      line_start = false;
      i = scan_directive(s, i, spans);
    } else if (is_ident_start(c)) {
      line_start = false;
      std::size_t j = i + 1;
      while (j < s.size() && is_ident(s[j])) ++j;
      std::string_view word = s.substr(i, j - i);
      if (j < s.size() && (s[j] == '"' || s[j] == '\'') && is_c_literal_prefix(word)) {
        std::size_t end = (word.back() == 'R' && s[j] == '"') ? scan_raw(s, j) : scan_quoted(s, j);
        spans.push_back({i, end, SpanKind::literal});
        i = end;
      } else {
        i = j;
      }
    } else if (is_digit(c) || (c == '.' && i + 1 < s.size() && is_digit(s[i + 1]))) {
      line_start = false;
      i = scan_pp_number(s, i);
    } else if (c == '"' || c == '\'') {
      line_start = false;
      std::size_t end = scan_quoted(s, i);
      spans.push_back({i, end, SpanKind::literal});
      i = end;
    } else {
      line_start = false;
      ++i;
    }
  }
  return spans;
}

class PythonLexer {
 public:
  explicit PythonLexer(std::string_view s) : s_(s) {}

  std::vector<Span> run() {
    std::size_t i = 0;
    while (i < s_.size()) i = step(i, /*in_interpolation=*/false);
    return std::move(spans_);
  }

 private:
  static bool is_string_prefix(std::string_view w, bool* formatted) {
    if (w.size() > 2) return false;
    bool f = false, r = false, b = false, u = false;
    for (char c : w) {
      switch (c) {
        case 'f':
        case 'F':
        case 't':
        case 'T':
          if (f) return false;
          f = true;
          break;
        case 'r':
        case 'R':
          if (r) return false;
          r = true;
          break;
        case 'b':
        case 'B':
          if (b) return false;
          b = true;
          break;
        case 'u':
        case 'U':
          if (u) return false;
          u = true;
          break;
        default:
          return false;
      }
    }
    if (u && w.size() > 1) return false;
    if (f && b) return false;
    *formatted = f;
    return true;
  }

  // Lexes one item of code at i; returns where the next item starts.
  std::size_t step(std::size_t i, bool in_interpolation) {
    const char c = s_[i];
    if (c == '#' && !in_interpolation) {
      std::size_t end = s_.find('\n', i);
      end = end == std::string_view::npos ? s_.size() : end;
      spans_.push_back({i, end, SpanKind::comment});
      return end;
    }
    if (is_ident_start(c)) {
      std::size_t j = i + 1;
      while (j < s_.size() && is_ident(s_[j])) ++j;
      bool formatted = false;
      if (j < s_.size() && (s_[j] == '"' || s_[j] == '\'') &&
          is_string_prefix(s_.substr(i, j - i), &formatted)) {
        return scan_string(i, j, formatted);
      }
      return j;
    }
    if (is_digit(c)) {
      std::size_t j = i + 1;
      while (j < s_.size() && (is_ident(s_[j]) || s_[j] == '.')) ++j;
      return j;
    }
    if (c == '"' || c == '\'') return scan_string(i, i, false);
    return i + 1;
  }

  // A string whose prefix starts at `begin` and whose quote is at q. Emits literal spans; the
  // {expressions} of an f-string are left as code, as tree-sitter-python parses them.
  std::size_t scan_string(std::size_t begin, std::size_t q, bool formatted) {
    const char quote = s_[q];
    const bool triple = q + 2 < s_.size() && s_[q + 1] == quote && s_[q + 2] == quote;
    std::size_t j = q + (triple ? 3 : 1);
    std::size_t seg = begin;
    while (j < s_.size()) {
      const char c = s_[j];
      if (c == '\\') {
        j += 2;
      } else if (c == quote &&
                 (!triple || (j + 2 < s_.size() && s_[j + 1] == quote && s_[j + 2] == quote))) {
        j += triple ? 3 : 1;
        spans_.push_back({seg, j, SpanKind::literal});
        return j;
      } else if (c == '\n' && !triple) {
        break;
      } else if (formatted && c == '{') {
        if (j + 1 < s_.size() && s_[j + 1] == '{') {
          j += 2;
          continue;
        }
        spans_.push_back({seg, j + 1, SpanKind::literal});
        j = scan_interpolation(j + 1, !triple);
        seg = j;  // the closing '}' (if any) belongs to the literal again
      } else {
        ++j;
      }
    }
    j = std::min(j, s_.size());
    if (seg < j) spans_.push_back({seg, j, SpanKind::literal});
    return j;
  }

  // Code inside {...} of an f-string, from i; returns the position of the closing '}' (or where
  // the expression was cut off).
  std::size_t scan_interpolation(std::size_t i, bool stop_at_newline) {
    int depth = 0;
    while (i < s_.size()) {
      const char c = s_[i];
      if (c == '(' || c == '[' || c == '{') {
        ++depth;
        ++i;
      } else if (c == ')' || c == ']' || c == '}') {
        if (depth == 0) return i;
        --depth;
        ++i;
      } else if (c == '\n' && depth == 0 && stop_at_newline) {
        return i;
      } else {
        i = step(i, /*in_interpolation=*/true);
      }
    }
    return i;
  }

  std::string_view s_;
  std::vector<Span> spans_;
};

// Spans are sorted by begin and disjoint.
bool occurrence_counts(std::string_view content, const std::vector<Span>& spans, std::size_t begin,
                       std::size_t end, std::string_view ref) {
  if (is_ident(ref.front()) && begin > 0 && is_ident(content[begin - 1])) return false;
  if (is_ident(ref.back()) && end < content.size() && is_ident(content[end])) return false;
  auto it = std::upper_bound(spans.begin(), spans.end(), begin,
                             [](std::size_t pos, const Span& sp) { return pos < sp.end; });
  for (; it != spans.end() && it->begin < end; ++it) {
    if (it->kind != SpanKind::literal) return false;
    if (it->begin < begin || it->end > end) return false;
  }
  return true;
}

bool contains_in(std::string_view content, const std::vector<Span>& spans, std::string_view ref) {
  if (ref.empty()) return false;
  for (std::size_t pos = content.find(ref); pos != std::string_view::npos;
       pos = content.find(ref, pos + 1)) {
    if (occurrence_counts(content, spans, pos, pos + ref.size(), ref)) return true;
  }
  return false;
}

std::vector<Span> lex(Family family, std::string_view content) {
  std::vector<Span> spans =
      family == Family::python ? PythonLexer(content).run() : lex_c_like(content);
  std::sort(spans.begin(), spans.end(),
            [](const Span& a, const Span& b) { return a.begin < b.begin; });
  return spans;
}

}  // namespace

bool contains_reference(std::string_view path, std::string_view content, std::string_view ref) {
  Family family = family_of(path);
  if (family == Family::none) return false;
  return contains_in(content, lex(family, content), ref);
}

SourceRefCheck check_source_references(const SourceReferences& refs,
                                       const std::vector<SourceFile>& solution_files) {
  std::vector<bool> found_all(refs.all.size(), false);
  bool found_any = false;
  for (const SourceFile& file : solution_files) {
    Family family = family_of(file.path);
    if (family == Family::none) continue;
    const std::vector<Span> spans = lex(family, file.content);
    for (std::size_t i = 0; i < refs.all.size(); ++i)
      if (!found_all[i]) found_all[i] = contains_in(file.content, spans, refs.all[i]);
    for (std::size_t i = 0; i < refs.any.size() && !found_any; ++i)
      found_any = contains_in(file.content, spans, refs.any[i]);
  }
  SourceRefCheck result;
  for (std::size_t i = 0; i < refs.all.size(); ++i)
    if (!found_all[i]) result.missing_all.push_back(refs.all[i]);
  result.any_missing = !refs.any.empty() && !found_any;
  result.passed = result.missing_all.empty() && !result.any_missing;
  return result;
}

}  // namespace kjudge
