#include "eval/python_escape.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <map>
#include <regex>
#include <set>
#include <vector>

#include "core/text.h"
#include "eval/python_imports.h"

namespace kjudge {

namespace {

struct Feature {
  std::regex pattern;
  const char* what;  // what the use would let the solution do
};

const std::vector<Feature>& features() {
  static const std::vector<Feature> list = [] {
    const char* ending = "ends the test's process, which decides the verdict";
    const char* reach = "reaches into the test's interpreter (its frames, modules or builtins)";
    const char* runs = "runs code the solution builds while it runs, past what is read here";
    const char* hooks = "hooks the interpreter, around the test's own code";
    const char* procs = "starts or signals other processes";
    // A word that follows a dot is some object's attribute (`re.compile(`, `stream.exit(`),
    // not the builtin.
    const std::string free = R"((^|[^\w.]))";
    // The process's and the interpreter's own functions are matched as an attribute of any
    // object, not only of `os` and `sys`: an alias (`import os as o`), `posix`, or a path
    // through another module (`cp._environment.os._exit`) reaches the same function.
    std::vector<std::pair<std::string, const char*>> src = {
        {R"((\b\w+)?\s*\.\s*(_exit|abort|kill|killpg|exit)\b)", ending},
        // The same names taken by a from-import (`from os import _exit`), or all of them.
        {R"(\bfrom\s+(os|sys|posix|nt)\s+import\b.*(\*|\b(_exit|abort|kill|killpg|exit|modules|_getframe|_current_frames|meta_path|path_hooks)\b))",
         ending},
        {R"(\bfrom\s+(os|sys|posix|nt)\s+import\b.*\b(system|popen|fork|forkpty|exec\w*|spawn\w*|posix_spawn\w*|settrace|setprofile|addaudithook|excepthook|displayhook|unraisablehook)\b)",
         hooks},
        {R"(\bSystemExit\b)", ending},
        {free + R"((exit|quit)\s*\()", ending},
        {R"((\b\w+)?\s*\.\s*(_getframe|_current_frames|meta_path|path_hooks|path_importer_cache)\b)",
         reach},
        // A module reached as another module's attribute.
        {R"((\b\w+)?\s*\.\s*(os|sys|posix|nt|builtins|subprocess|ctypes|gc|inspect|importlib|atexit|multiprocessing)\b)",
         reach},
        {R"((\b\w+)?\s*\.\s*(settrace|setprofile|addaudithook|excepthook|displayhook|unraisablehook)\b)",
         hooks},
        {R"(\b(__builtins__|__import__)\b)", reach},
        {R"(\b(f_back|f_globals|f_locals|f_builtins|f_code|tb_frame|tb_next|gi_frame|cr_frame)\b)",
         reach},
        {R"(\b(__dict__|__globals__|__code__|__closure__|__subclasses__|__setattr__|__delattr__|__class__|__bases__|__mro__)\b)",
         reach},
        {free + R"((setattr|delattr|vars|globals|locals)\s*\()", reach},
        {free + R"((exec|eval|compile)\s*\()", runs},
        {R"((\b\w+)?\s*\.\s*(system|popen|fork|forkpty|exec[lv]\w*|spawn[lv]\w*|posix_spawn\w*)\b)",
         procs},
    };
    std::vector<Feature> out;
    for (const auto& [re, what] : src) out.push_back({std::regex(re), what});
    return out;
  }();
  return list;
}

// Modules whose only use in a solution would be one of the above.
const std::map<std::string, const char*>& refused_modules() {
  static const std::map<std::string, const char*> m = {
      {"atexit", "ends the test's process, which decides the verdict"},
      {"signal", "hooks the interpreter, around the test's own code"},
      {"builtins", "reaches into the test's interpreter (its frames, modules or builtins)"},
      {"importlib", "reaches into the test's interpreter (its frames, modules or builtins)"},
      {"inspect", "reaches into the test's interpreter (its frames, modules or builtins)"},
      {"gc", "reaches into the test's interpreter (its frames, modules or builtins)"},
      {"ctypes", "reaches into the test's interpreter (its frames, modules or builtins)"},
      {"cffi", "reaches into the test's interpreter (its frames, modules or builtins)"},
      {"subprocess", "starts or signals other processes"},
      {"multiprocessing", "starts or signals other processes"},
      {"pty", "starts or signals other processes"},
      {"posix", "ends the test's process, which decides the verdict"},
      {"nt", "ends the test's process, which decides the verdict"},
  };
  return m;
}

// What each name an import statement binds refers to (`import numpy as np` → np: numpy,
// `import a.b` → a: a, `from x import y as z` → z: x.y). A name bound twice keeps both: which
// of them holds where depends on the path the code takes (`import os as o` in one branch,
// `import numpy as o` in another).
std::map<std::string, std::set<std::string>> imported_names(
    const std::vector<PythonImport>& imports) {
  std::map<std::string, std::set<std::string>> names;
  for (const PythonImport& i : imports)
    if (!i.bound.empty()) names[i.bound].insert(i.target());
  return names;
}

std::string refusal(const SourceFile& f, int line, const std::string& what,
                    const std::string& why) {
  return "file '" + f.path + "' line " + std::to_string(line) + " " + what +
         ": in a cuda_python solution, which runs inside the test's own interpreter, that " + why +
         " (kjudge refuses it: docs/cheats.md)";
}

// `text` with each run of whitespace made one space, which every rule reads as it reads the run.
// std::regex matches by recursion, one level for each character a `\s*` or `\w*` takes: a run of
// blanked string (a RawKernel's CUDA source, tens of kilobytes) read as it is overflows the
// judge's stack.
std::string squeeze(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const bool ws = std::isspace(static_cast<unsigned char>(c)) != 0;
    if (ws && !out.empty() && out.back() == ' ') continue;
    out += ws ? ' ' : c;
  }
  return out;
}

// The longest statement the rules read, outside its strings and comments and its whitespace
// squeezed: far past any solution's (ComputeEval 2026-1's 48 cuTile baselines: 222
// characters), and short enough that no rule's recursion can take the judge's stack.
constexpr std::size_t kMaxStatement = 8192;

// An attribute of a bound name (`attribute` matches one) that stands between a `for` and its
// `in`, a loop's target (`for np.x in [f]:`, `[0 for np.x in [f]]`), or nullopt. Read in one
// pass over the line: a regex that searched on from each `for` for its `in` took time in the
// square of the line's length.
std::optional<std::string> for_target(const std::string& line, const std::regex& attribute) {
  std::vector<std::pair<std::size_t, bool>> words;  // where each `for` (true) or `in` starts
  const auto word_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  };
  for (std::size_t i = 0; i < line.size();) {
    if (!word_char(line[i])) {
      ++i;
      continue;
    }
    std::size_t e = i;
    while (e < line.size() && word_char(line[e])) ++e;
    if (line.compare(i, e - i, "for") == 0 || line.compare(i, e - i, "in") == 0)
      words.emplace_back(i, e - i == 3);
    i = e;
  }
  std::size_t next = 0;
  bool in_target = false;
  for (auto it = std::sregex_iterator(line.begin(), line.end(), attribute);
       it != std::sregex_iterator(); ++it) {
    const auto at = static_cast<std::size_t>(it->position(0));
    while (next < words.size() && words[next].first < at) in_target = words[next++].second;
    if (in_target) return trim(it->str(0).substr(1));
  }
  return std::nullopt;
}

// The first character outside strings and comments of `lines` that is not ASCII, as a refusal.
// Python reads an identifier NFKC-normalized, so `os._ｅxit(0)` (a full-width e) calls
// os._exit: a name spelled in look-alike letters would pass every rule above, which match
// names as ASCII. Letters do not end there (mathematical, compatibility and other forms fold
// too), so the rule is the class, not a list: code here is ASCII. Strings and comments,
// where Python folds nothing, may hold any character.
std::optional<std::string> non_ascii(const SourceFile& f,
                                     const std::vector<PythonLogicalLine>& lines) {
  for (const PythonLogicalLine& l : lines) {
    const auto at = std::find_if(l.text.begin(), l.text.end(),
                                 [](char c) { return static_cast<unsigned char>(c) >= 0x80; });
    if (at == l.text.end()) continue;
    // The character's UTF-8 bytes and code point (a malformed sequence: its first byte).
    const auto offset = static_cast<std::size_t>(at - l.text.begin());
    const auto lead = static_cast<unsigned char>(*at);
    const std::size_t len = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    std::uint32_t cp = len == 1 ? lead : lead & (0x7F >> len);
    std::size_t k = 1;
    for (; k < len && offset + k < l.text.size(); ++k) {
      const auto b = static_cast<unsigned char>(l.text[offset + k]);
      if ((b & 0xC0) != 0x80) break;
      cp = (cp << 6) | (b & 0x3F);
    }
    std::string shown;
    if (k == len && len > 1) {
      char hex[16];
      std::snprintf(hex, sizeof hex, "U+%04X", static_cast<unsigned>(cp));
      shown = "'" + l.text.substr(offset, len) + "', " + hex;
      // The full-width forms of ASCII (U+FF01 to U+FF5E) are the plainest look-alikes.
      if (cp >= 0xFF01 && cp <= 0xFF5E)
        shown += ", which Python reads as '" + std::string(1, static_cast<char>(cp - 0xFEE0)) + "'";
    } else {
      char hex[16];
      std::snprintf(hex, sizeof hex, "byte 0x%02X", static_cast<unsigned>(lead));
      shown = hex;
    }
    return refusal(f, l.line_at(offset),
                   "uses a non-ASCII character outside strings and comments (" + shown + ")",
                   "could spell a name in letters the checks here do not match (Python reads a "
                   "name NFKC-normalized, so a full-width or other look-alike letter spells the "
                   "ASCII name: os._exit with a full-width e calls os._exit); identifiers must "
                   "be ASCII here");
  }
  return std::nullopt;
}

// A declared source encoding other than UTF-8 (or ASCII or Latin-1, which read ASCII as it is)
// on the file's first two lines, where Python reads one (PEP 263), as a refusal. Under
// another codec the bytes read here as a comment or a string are not what Python reads:
// `# coding: utf-7` makes `+AAo-` a newline, which ends a comment and starts code, and
// `unicode_escape` turns `\x5f` in a comment into `_`.
std::optional<std::string> foreign_encoding(const SourceFile& f) {
  static const std::set<std::string> kSafe = {"utf-8",   "utf8",       "ascii",      "us-ascii",
                                              "latin-1", "latin1",     "iso-8859-1", "iso8859-1",
                                              "l1",      "iso-latin-1"};
  const std::string& s = f.content;
  std::size_t pos = 0;
  for (int line = 1; line <= 2 && pos < s.size(); ++line) {
    const std::size_t end = std::min(s.find_first_of("\r\n", pos), s.size());
    // CPython's reading (get_coding_spec): a line that is a comment, in which the first
    // `coding` followed by `:` or `=`, blanks and a name gives the name.
    std::size_t i = s.find_first_not_of(" \t\f", pos);
    if (i < end && s[i] == '#') {
      for (i = s.find("coding", i); i < end; i = s.find("coding", i + 1)) {
        std::size_t t = i + 6;
        if (t >= end || (s[t] != ':' && s[t] != '=')) continue;
        ++t;
        while (t < end && (s[t] == ' ' || s[t] == '\t')) ++t;
        const std::size_t b = t;
        while (t < end && (std::isalnum(static_cast<unsigned char>(s[t])) || s[t] == '-' ||
                           s[t] == '_' || s[t] == '.'))
          ++t;
        if (t == b) continue;
        std::string name = s.substr(b, t - b);
        for (char& c : name)
          c = c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (kSafe.count(name)) break;
        return refusal(f, line, "declares its source encoding as '" + s.substr(b, t - b) + "'",
                       "makes what Python runs differ from what is read here (under a codec "
                       "such as utf-7 a comment's bytes can decode to a newline and code); a "
                       "Python file here is UTF-8");
      }
    }
    pos = end + (s.compare(end, 2, "\r\n") == 0 ? 2 : 1);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> python_escape(const Problem& problem, const Solution& solution) {
  if (problem.type != "cuda_python") return std::nullopt;
  const char* rebinds = "changes what the test's own code calls";
  for (const SourceFile& f : solution.files) {
    if (f.path.size() < 3 || f.path.compare(f.path.size() - 3, 3, ".py") != 0) continue;
    const std::vector<PythonLogicalLine> lines = python_logical_lines(f.content);
    if (auto why = foreign_encoding(f)) return why;
    if (auto why = non_ascii(f, lines)) return why;
    // Each line as the rules below read it: its import statements blanked, since they bind the
    // names those rules look for and use none; the line's other statements are read.
    std::vector<std::string> uses;
    std::vector<std::vector<std::string>> statements;  // each line's other statements
    std::vector<PythonImport> imports;
    std::vector<std::string> texts;  // each line's text, squeezed
    for (const PythonLogicalLine& l : lines) {
      texts.push_back(squeeze(l.text));
      if (texts.back().size() > kMaxStatement)
        return refusal(f, l.number,
                       "holds a statement of " + std::to_string(texts.back().size()) +
                           " characters outside its strings and comments",
                       "is longer than the " + std::to_string(kMaxStatement) +
                           " characters read here, which no kernel's launcher needs");
      std::string text = l.text;
      statements.emplace_back();
      for (const PythonStatement& s : python_statements(l)) {
        if (!s.is_import) {
          statements.back().push_back(squeeze(s.text));
          continue;
        }
        imports.insert(imports.end(), s.imports.begin(), s.imports.end());
        text.replace(s.offset, s.text.size(), s.text.size(), ' ');
      }
      uses.push_back(squeeze(text));
    }
    std::set<std::string> modules;
    for (const PythonImport& i : imports)
      if (!i.top_module().empty()) modules.insert(i.top_module());
    for (const std::string& mod : modules)
      if (auto it = refused_modules().find(mod); it != refused_modules().end())
        return "file '" + f.path + "' imports " + mod +
               ": in a cuda_python solution, which runs inside the test's own interpreter, "
               "that " +
               it->second + " (kjudge refuses it: docs/cheats.md)";
    // Rebinding an attribute of what an import bound: another module's function, class or
    // setting, which the test's own code would then use. And `os` or `sys` used other than
    // through an attribute (`m = os`, `getattr(os, name)`): what the rules read would no longer
    // name it.
    std::string bound, process;
    for (const auto& [name, targets] : imported_names(imports)) {
      bound += (bound.empty() ? "" : "|") + name;
      for (const std::string& module : targets)
        if (module == "os" || module == "sys" || module == "posix" || module == "nt") {
          process += (process.empty() ? "" : "|") + name;
          break;
        }
    }
    std::optional<std::regex> rebinding, bare, attribute, as_target, annotated, sys_modules;
    if (!bound.empty()) {
      rebinding.emplace(
          R"((^|[^\w.])(del\s+)?()" + bound +
          R"()\s*(\.\s*\w+\s*)+\)*\s*(=(?!=)|\+=|-=|\*=|/=|//=|%=|\*\*=|&=|\|=|\^=|>>=|<<=|@=|,|$))");
      // `for np.x in ...`, `with f() as np.x:`: the same rebinding as a loop's or a with's target.
      attribute.emplace(R"([^\w.]()" + bound + R"()\s*\.\s*\w+)");
      as_target.emplace(R"(\bas\b\s*[^\w.]()" + bound + R"()\s*\.\s*\w+)");
      // `np.testing.assert_allclose: object = print`, an annotated assignment, its target
      // parenthesised or not; read per statement (after `;` or `if x:` too).
      annotated.emplace(R"(^[\s(]*()" + bound + R"()\s*(\.\s*\w+\s*)+\)*\s*:(?!=))");
    }
    if (!process.empty()) {
      bare.emplace(R"((^|[^\w.])()" + process + R"()\b(?!\s*\.))");
      sys_modules.emplace(R"((^|[^\w.])()" + process + R"()\s*\.\s*modules\b)");
    }
    for (std::size_t k = 0; k < lines.size(); ++k) {
      const PythonLogicalLine& l = lines[k];
      std::smatch m;
      for (const Feature& feat : features())
        if (std::regex_search(texts[k], m, feat.pattern))
          return refusal(f, l.number, "uses " + trim(m.str(0)), feat.what);
      const std::string& line = uses[k];
      if (sys_modules && std::regex_search(line, m, *sys_modules))
        return refusal(f, l.number, "uses " + trim(m.str(0)),
                       "reaches into the test's interpreter (its frames, modules or builtins)");
      if (bare && std::regex_search(line, m, *bare))
        return refusal(f, l.number, "passes the module " + m.str(2) + " around",
                       "hides which of its functions are called");
      if (!rebinding) continue;
      if (std::regex_search(line, m, *as_target))
        return refusal(f, l.number, "rebinds " + trim(m.str(0)), rebinds);
      if (auto target = for_target(line, *attribute))
        return refusal(f, l.number, "rebinds " + *target + ", a for loop's target", rebinds);
      for (const std::string& statement : statements[k])
        if (std::regex_search(statement, m, *annotated))
          return refusal(f, l.number, "rebinds " + trim(m.str(0)), rebinds);
      int depth = 0;  // the bracket depth at line[depth_at], counted on as the matches go
      std::size_t depth_at = 0;
      for (auto it = std::sregex_iterator(line.begin(), line.end(), *rebinding);
           it != std::sregex_iterator(); ++it) {
        const std::smatch& r = *it;
        const bool del = r[2].matched;
        const std::string op = r[5].str();
        const auto at = static_cast<std::size_t>(r.position(3));
        // An annotation's default (`dtype: torch.dtype = torch.float32`) binds a parameter or
        // a field, not the attribute.
        std::size_t before = at;
        while (before > 0 && (line[before - 1] == ' ' || line[before - 1] == '\t')) --before;
        if (!del && before > 0 && line[before - 1] == ':') continue;
        // Inside brackets an attribute followed by `,` or nothing is an argument or an element;
        // outside, a target only where an `=` (not `==`) comes after it (`x, np.y = ...`). A
        // parenthesised target (`(np.x) = f`) has its own `)` before the `=`.
        if (!del && (op == "," || op.empty())) {
          for (; depth_at < at; ++depth_at) {
            const char c = line[depth_at];
            depth += c == '(' || c == '[' || c == '{'   ? 1
                     : c == ')' || c == ']' || c == '}' ? -1
                                                        : 0;
          }
          const auto eq = line.find('=', at);
          if (depth > 0 || eq == std::string::npos || line.compare(eq, 2, "==") == 0) continue;
        }
        return refusal(
            f, l.number,
            "rebinds " +
                trim(line.substr(at, static_cast<std::size_t>(r.position(0) + r.length(0)) - at)),
            rebinds);
      }
    }
  }
  return std::nullopt;
}

}  // namespace kjudge
