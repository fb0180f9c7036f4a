#include "eval/python_imports.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "eval/static_flags.h"

namespace kjudge {

namespace {

bool space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// A byte of an identifier. Python's identifiers may hold any letter, so every non-ASCII byte
// is taken as one: `import numpy as ñp` binds ñp.
bool ident_char(char c) {
  const auto u = static_cast<unsigned char>(c);
  return std::isalnum(u) || c == '_' || u >= 0x80;
}

bool is_name(const std::string& token) {
  return !token.empty() && ident_char(token[0]) &&
         !std::isdigit(static_cast<unsigned char>(token[0]));
}

// "\r\n" and a lone "\r" made "\n": Python ends a line at each (a comment ends there too).
std::string unix_newlines(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\r') {
      out += s[i];
      continue;
    }
    out += '\n';
    if (i + 1 < s.size() && s[i + 1] == '\n') ++i;
  }
  return out;
}

// A statement's words (identifiers, keywords among them) and every other character but
// whitespace as a token of its own: `from ..a.b import (c as d)` gives from . . a . b import ( c
// as d ).
std::vector<std::string> tokens(const std::string& s) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < s.size();) {
    if (space(s[i])) {
      ++i;
    } else if (ident_char(s[i])) {
      const std::size_t b = i;
      while (i < s.size() && ident_char(s[i])) ++i;
      out.push_back(s.substr(b, i - b));
    } else {
      out.emplace_back(1, s[i++]);
    }
  }
  return out;
}

// Whether `stmt` is an import statement, and what it binds into `out`. The grammar's own
// brackets (`from m import (a, b)`) are read; what no import statement may hold ends the
// reading there, so that nothing but names is ever bound.
bool read_import(const std::string& stmt, int line, std::vector<PythonImport>& out) {
  const std::vector<std::string> t = tokens(stmt);
  if (t.empty() || (t[0] != "import" && t[0] != "from")) return false;
  std::size_t i = 1;
  auto at = [&](const char* s) { return i < t.size() && t[i] == s; };
  auto dotted = [&] {
    if (i >= t.size() || !is_name(t[i])) return std::string();
    std::string d = t[i++];
    while (at(".") && i + 1 < t.size() && is_name(t[i + 1])) {
      d += "." + t[i + 1];
      i += 2;
    }
    return d;
  };
  auto alias = [&](PythonImport& r) {
    if (at("as") && i + 1 < t.size() && is_name(t[i + 1])) {
      r.alias = t[i + 1];
      i += 2;
    }
  };
  if (t[0] == "import") {
    bool any = false;
    for (;;) {
      PythonImport r;
      r.line = line;
      r.module = dotted();
      if (r.module.empty()) break;
      alias(r);
      r.bound = r.alias.empty() ? r.module.substr(0, r.module.find('.')) : r.alias;
      out.push_back(r);
      any = true;
      if (!at(",")) break;
      ++i;
    }
    return any;
  }
  int level = 0;
  for (; at("."); ++i) ++level;
  const std::string module = at("import") ? "" : dotted();
  if (!at("import")) return false;  // `from` alone, or `yield from x` cut short
  ++i;
  const bool parens = at("(");
  if (parens) ++i;
  for (;;) {
    PythonImport r;
    r.line = line;
    r.from = true;
    r.level = level;
    r.module = module;
    if (at("*")) {
      r.name = t[i++];  // binds whatever the module has: no name known here
    } else if (i < t.size() && is_name(t[i])) {
      r.name = t[i++];
      alias(r);
      r.bound = r.alias.empty() ? r.name : r.alias;
    } else {
      break;
    }
    out.push_back(r);
    if (!at(",")) break;
    ++i;
  }
  return true;
}

// Where the compound statement's header that `t[b, e)` begins with ends (its `:`), or npos when
// it begins with none. The colons of a lambda, a slice, a dict or an annotation in brackets,
// and `:=`, are not the header's.
std::size_t header_end(const std::string& t, std::size_t b, std::size_t e) {
  static const std::set<std::string> kHeaders = {"if",    "elif",   "else",    "while", "for",
                                                 "try",   "except", "finally", "with",  "def",
                                                 "class", "async",  "match",   "case"};
  std::size_t k = b;
  while (k < e && ident_char(t[k])) ++k;
  if (!kHeaders.count(t.substr(b, k - b))) return std::string::npos;
  int depth = 0, lambdas = 0;
  for (k = b; k < e; ++k) {
    const char c = t[k];
    if (ident_char(c) && (k == b || !ident_char(t[k - 1]))) {
      std::size_t w = k;
      while (w < e && ident_char(t[w])) ++w;
      if (depth == 0 && t.compare(k, w - k, "lambda") == 0) ++lambdas;
      k = w - 1;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      --depth;
    } else if (c == ':' && depth <= 0 && (k + 1 >= e || t[k + 1] != '=')) {
      if (lambdas == 0) return k;
      --lambdas;
    }
  }
  return std::string::npos;
}

bool is_import_statement(const std::string& text) {
  std::vector<PythonImport> ignored;
  return read_import(text, 0, ignored);
}

}  // namespace

int PythonLogicalLine::line_at(std::size_t offset) const {
  return number +
         static_cast<int>(std::upper_bound(breaks.begin(), breaks.end(), offset) - breaks.begin());
}

std::string PythonImport::target() const {
  if (!from) return alias.empty() ? module.substr(0, module.find('.')) : module;
  return std::string(static_cast<std::size_t>(level), '.') + module + (module.empty() ? "" : ".") +
         name;
}

std::string PythonImport::top_module() const {
  return level > 0 ? "" : module.substr(0, module.find('.'));
}

std::vector<PythonLogicalLine> python_logical_lines(const std::string& text) {
  // A UTF-8 byte order mark that starts the file is none of its code: Python skips it.
  const bool bom = text.compare(0, 3, "\xEF\xBB\xBF") == 0;
  const std::string code = strip_python(unix_newlines(bom ? text.substr(3) : text)).code;
  std::vector<PythonLogicalLine> out;
  PythonLogicalLine cur;
  bool open = false, continued = false;
  int depth = 0, n = 0;
  for (std::size_t pos = 0; pos < code.size();) {
    const std::size_t end = std::min(code.find('\n', pos), code.size());
    const std::string line = code.substr(pos, end - pos);
    pos = end + 1;
    ++n;
    if (open && depth > 0 && !continued && is_import_statement(line)) {
      out.push_back(std::move(cur));
      open = false;
    }
    if (!open) {
      cur = PythonLogicalLine{n, "", {}};
      open = true;
      depth = 0;
    } else {
      cur.breaks.push_back(cur.text.size());
    }
    continued = !line.empty() && line.back() == '\\';
    cur.text += (continued ? line.substr(0, line.size() - 1) : line) + " ";
    for (char c : line)
      depth += c == '(' || c == '[' || c == '{' ? 1 : c == ')' || c == ']' || c == '}' ? -1 : 0;
    if (depth > 0 || continued) continue;
    out.push_back(std::move(cur));
    open = false;
  }
  if (open) out.push_back(std::move(cur));
  return out;
}

std::vector<PythonStatement> python_statements(const PythonLogicalLine& line) {
  std::vector<PythonStatement> out;
  const std::string& t = line.text;
  auto add = [&](std::size_t b, std::size_t e) {
    while (b < e && space(t[b])) ++b;
    while (e > b && space(t[e - 1])) --e;
    if (b == e) return;
    PythonStatement s;
    s.line = line.line_at(b);
    s.offset = b;
    s.text = t.substr(b, e - b);
    s.is_import = read_import(s.text, s.line, s.imports);
    out.push_back(std::move(s));
  };
  // Every `;` ends a statement: in brackets, where valid Python has none, too, so that a bracket
  // the blanking misread cannot join statements.
  for (std::size_t start = 0, i = 0; i <= t.size(); ++i) {
    if (i < t.size() && t[i] != ';') continue;
    std::size_t b = start;
    for (;;) {
      while (b < i && space(t[b])) ++b;
      const std::size_t colon = header_end(t, b, i);
      if (colon == std::string::npos) break;
      add(b, colon + 1);
      b = colon + 1;
    }
    add(b, i);
    start = i + 1;
  }
  return out;
}

std::vector<PythonImport> parse_python_imports(const std::string& text) {
  std::vector<PythonImport> out;
  for (const PythonLogicalLine& l : python_logical_lines(text))
    for (PythonStatement& s : python_statements(l))
      out.insert(out.end(), s.imports.begin(), s.imports.end());
  return out;
}

}  // namespace kjudge
