#include "eval/python_escape.h"

#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

#include "eval/solution_rules.h"
#include "eval/static_flags.h"

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
        {R"(\w*\s*\.\s*(_exit|abort|kill|killpg|exit)\b)", ending},
        // The same names taken by a from-import (`from os import _exit`), or all of them.
        {R"(\bfrom\s+(os|sys|posix|nt)\s+import\b.*(\*|\b(_exit|abort|kill|killpg|exit|modules|_getframe|_current_frames|meta_path|path_hooks)\b))",
         ending},
        {R"(\bfrom\s+(os|sys|posix|nt)\s+import\b.*\b(system|popen|fork|forkpty|exec\w*|spawn\w*|posix_spawn\w*|settrace|setprofile|addaudithook|excepthook|displayhook|unraisablehook)\b)",
         hooks},
        {R"(\bSystemExit\b)", ending},
        {free + R"((exit|quit)\s*\()", ending},
        {R"(\w*\s*\.\s*(_getframe|_current_frames|meta_path|path_hooks|path_importer_cache)\b)",
         reach},
        // A module reached as another module's attribute.
        {R"(\w*\s*\.\s*(os|sys|posix|nt|builtins|subprocess|ctypes|gc|inspect|importlib|atexit|multiprocessing)\b)",
         reach},
        {R"(\w*\s*\.\s*(settrace|setprofile|addaudithook|excepthook|displayhook|unraisablehook)\b)",
         hooks},
        {R"(\b(__builtins__|__import__)\b)", reach},
        {R"(\b(f_back|f_globals|f_locals|f_builtins|f_code|tb_frame|tb_next|gi_frame|cr_frame)\b)",
         reach},
        {R"(\b(__dict__|__globals__|__code__|__closure__|__subclasses__|__setattr__|__delattr__|__class__|__bases__|__mro__)\b)",
         reach},
        {free + R"((setattr|delattr|vars|globals|locals)\s*\()", reach},
        {free + R"((exec|eval|compile)\s*\()", runs},
        {R"(\w*\s*\.\s*(system|popen|fork|forkpty|exec[lv]\w*|spawn[lv]\w*|posix_spawn\w*)\b)",
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

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, sep)) out.push_back(trim(part));
  return out;
}

// The file's logical lines: a statement continued in brackets or after a backslash is one line
// (its newlines made spaces), numbered by where it starts. A rule that reads one physical line
// would miss `(np.testing\n    .assert_allclose) = f`.
struct LogicalLine {
  int number;
  std::string text;
};
std::vector<LogicalLine> logical_lines(const std::string& code) {
  std::vector<LogicalLine> out;
  std::istringstream lines(code);
  std::string line, logical;
  int depth = 0, start = 1, n = 0;
  while (std::getline(lines, line)) {
    ++n;
    if (logical.empty()) start = n;
    const bool continued = !line.empty() && line.back() == '\\';
    logical += (continued ? line.substr(0, line.size() - 1) : line) + " ";
    for (char c : line)
      depth += c == '(' || c == '[' || c == '{' ? 1 : c == ')' || c == ']' || c == '}' ? -1 : 0;
    if (depth > 0 || continued) continue;
    out.push_back({start, logical});
    logical.clear();
    depth = 0;
  }
  if (!logical.empty()) out.push_back({start, logical});
  return out;
}

// What each name an import statement binds refers to (`import numpy as np` → np: numpy,
// `import a.b` → a: a, `from x import y as z` → z: x.y).
std::map<std::string, std::string> imported_names(const std::vector<LogicalLine>& lines) {
  std::map<std::string, std::string> names;
  for (const LogicalLine& l : lines) {
    for (std::string s : split(l.text, ';')) {
      for (char& c : s)
        if (c == '(' || c == ')' || c == '\\') c = ' ';
      s = trim(s);
      if (s.rfind("import ", 0) == 0) {
        for (const std::string& item : split(s.substr(7), ',')) {
          const auto as = item.find(" as ");
          const std::string module = trim(item.substr(0, as));
          names[as != std::string::npos ? trim(item.substr(as + 4))
                                        : module.substr(0, module.find('.'))] = module;
        }
      } else if (s.rfind("from ", 0) == 0) {
        const auto imp = s.find(" import ");
        if (imp == std::string::npos) continue;
        const std::string module = trim(s.substr(5, imp - 5));
        for (const std::string& item : split(s.substr(imp + 8), ',')) {
          const auto as = item.find(" as ");
          const std::string name = trim(item.substr(0, as));
          names[trim(as != std::string::npos ? item.substr(as + 4) : item)] = module + "." + name;
        }
      }
    }
  }
  names.erase("");
  names.erase("*");
  return names;
}

bool is_import(const std::string& line) {
  const std::string t = trim(line);
  return t.rfind("import ", 0) == 0 || t.rfind("from ", 0) == 0;
}

std::string refusal(const SourceFile& f, int line, const std::string& what, const char* why) {
  return "file '" + f.path + "' line " + std::to_string(line) + " " + what +
         ": in a cuda_python solution, which runs inside the test's own interpreter, that " + why +
         " (kjudge refuses it: docs/cheats.md)";
}

}  // namespace

std::optional<std::string> python_escape(const Problem& problem, const Solution& solution) {
  if (problem.type != "cuda_python") return std::nullopt;
  const char* rebinds = "changes what the test's own code calls";
  for (const SourceFile& f : solution.files) {
    if (f.path.size() < 3 || f.path.compare(f.path.size() - 3, 3, ".py") != 0) continue;
    for (const std::string& mod : python_module_imports(f.content))
      if (auto it = refused_modules().find(mod); it != refused_modules().end())
        return "file '" + f.path + "' imports " + mod +
               ": in a cuda_python solution, which runs inside the test's own interpreter, "
               "that " +
               it->second + " (kjudge refuses it: docs/cheats.md)";
    const std::vector<LogicalLine> lines = logical_lines(strip_python(f.content).code);
    const std::map<std::string, std::string> names = imported_names(lines);
    // Rebinding an attribute of what an import bound: another module's function, class or
    // setting, which the test's own code would then use. And `os` or `sys` used other than
    // through an attribute (`m = os`, `getattr(os, name)`): what the rules read would no longer
    // name it.
    std::string bound, process;
    for (const auto& [name, module] : names) {
      bound += (bound.empty() ? "" : "|") + name;
      const std::string top = module.substr(0, module.find('.'));
      if (module == top && (top == "os" || top == "sys" || top == "posix" || top == "nt"))
        process += (process.empty() ? "" : "|") + name;
    }
    std::optional<std::regex> rebinding, bare, target_of, annotated, sys_modules;
    if (!bound.empty()) {
      rebinding.emplace(
          R"((^|[^\w.])(del\s+)?()" + bound +
          R"()\s*(\.\s*\w+\s*)+\)*\s*(=(?!=)|\+=|-=|\*=|/=|//=|%=|\*\*=|&=|\|=|\^=|>>=|<<=|@=|,|$))");
      // `for np.x in ...`, `with f() as np.x:`: the same rebinding as a loop's or a with's target.
      target_of.emplace(R"((\bfor\b(?:(?!\bin\b).)*?|\bas\b\s*)([^\w.])()" + bound +
                        R"()\s*\.\s*\w)");
      // `np.testing.assert_allclose: object = print`, an annotated assignment.
      annotated.emplace(R"(^\s*()" + bound + R"()\s*(\.\s*\w+\s*)+:(?!=))");
    }
    if (!process.empty()) {
      bare.emplace(R"((^|[^\w.])()" + process + R"()\b(?!\s*\.))");
      sys_modules.emplace(R"((^|[^\w.])()" + process + R"()\s*\.\s*modules\b)");
    }
    for (const LogicalLine& l : lines) {
      const std::string& line = l.text;
      std::smatch m;
      for (const Feature& feat : features())
        if (std::regex_search(line, m, feat.pattern))
          return refusal(f, l.number, "uses " + trim(m.str(0)), feat.what);
      if (is_import(line)) continue;
      if (sys_modules && std::regex_search(line, m, *sys_modules))
        return refusal(f, l.number, "uses " + trim(m.str(0)),
                       "reaches into the test's interpreter (its frames, modules or builtins)");
      if (bare && std::regex_search(line, m, *bare))
        return refusal(f, l.number, "passes the module " + m.str(2) + " around",
                       "hides which of its functions are called");
      if (!rebinding) continue;
      if (std::regex_search(line, m, *annotated) || std::regex_search(line, m, *target_of))
        return refusal(f, l.number, "rebinds " + trim(m.str(0)), rebinds);
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
          int depth = 0;
          for (std::size_t i = 0; i < at; ++i)
            depth += std::string("([{").find(line[i]) != std::string::npos   ? 1
                     : std::string(")]}").find(line[i]) != std::string::npos ? -1
                                                                             : 0;
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
