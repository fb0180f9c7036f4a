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
    std::vector<std::pair<std::string, const char*>> src = {
        {R"(\bos\s*\.\s*(_exit|abort|kill|killpg)\b)", ending},
        {R"(\bsys\s*\.\s*exit\b)", ending},
        // The same names taken by a from-import (`from os import _exit`), or all of them.
        {R"(\bfrom\s+(os|sys|posix)\s+import\b.*(\*|\b(_exit|abort|kill|killpg|exit|modules|_getframe|_current_frames|meta_path|path_hooks)\b))",
         ending},
        {R"(\bfrom\s+(os|sys|posix)\s+import\b.*\b(system|popen|fork|forkpty|exec\w*|spawn\w*|posix_spawn\w*|settrace|setprofile|addaudithook|excepthook|displayhook|unraisablehook)\b)",
         hooks},
        {R"(\bSystemExit\b)", ending},
        {free + R"((exit|quit)\s*\()", ending},
        {R"(\bsys\s*\.\s*(modules|_getframe|_current_frames|meta_path|path_hooks|path_importer_cache)\b)",
         reach},
        {R"(\bsys\s*\.\s*(settrace|setprofile|addaudithook|excepthook|displayhook|unraisablehook)\b)",
         hooks},
        {R"(\b(__builtins__|__import__)\b)", reach},
        {R"(\b(f_back|f_globals|f_locals|f_builtins|f_code|tb_frame|tb_next|gi_frame|cr_frame)\b)",
         reach},
        {R"(\b(__dict__|__globals__|__code__|__closure__|__subclasses__|__setattr__|__delattr__|__class__|__bases__|__mro__)\b)",
         reach},
        {free + R"((setattr|delattr|vars|globals|locals)\s*\()", reach},
        {free + R"((exec|eval|compile)\s*\()", runs},
        {R"(\bos\s*\.\s*(system|popen|fork|forkpty|exec\w*|spawn\w*|posix_spawn\w*)\b)", procs},
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

// The names the file's import statements bind (`import numpy as np` → np, `import a.b` → a,
// `from x import y as z` → z), over logical lines (a parenthesised from-import spans several).
std::set<std::string> imported_names(const std::string& code) {
  std::set<std::string> names;
  std::istringstream lines(code);
  std::string line, logical;
  int depth = 0;
  auto take = [&](std::string stmt) {
    for (const std::string& simple : split(stmt, ';')) {
      std::string s = simple;
      for (char& c : s)
        if (c == '(' || c == ')' || c == '\\' || c == '\n') c = ' ';
      s = trim(s);
      std::string list;
      if (s.rfind("import ", 0) == 0) {
        list = s.substr(7);
        for (const std::string& item : split(list, ',')) {
          const auto as = item.find(" as ");
          names.insert(as != std::string::npos ? trim(item.substr(as + 4))
                                               : trim(item.substr(0, item.find('.'))));
        }
      } else if (s.rfind("from ", 0) == 0) {
        const auto imp = s.find(" import ");
        if (imp == std::string::npos) continue;
        for (const std::string& item : split(s.substr(imp + 8), ',')) {
          const auto as = item.find(" as ");
          names.insert(trim(as != std::string::npos ? item.substr(as + 4) : item));
        }
      }
    }
  };
  while (std::getline(lines, line)) {
    logical += line + "\n";
    for (char c : line) depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    if (depth > 0 || (!line.empty() && line.back() == '\\')) continue;
    take(trim(logical));
    logical.clear();
    depth = 0;
  }
  take(trim(logical));
  names.erase("");
  names.erase("*");
  return names;
}

}  // namespace

std::optional<std::string> python_escape(const Problem& problem, const Solution& solution) {
  if (problem.type != "cuda_python") return std::nullopt;
  for (const SourceFile& f : solution.files) {
    if (f.path.size() < 3 || f.path.compare(f.path.size() - 3, 3, ".py") != 0) continue;
    const std::string code = strip_python(f.content).code;
    for (const std::string& mod : python_module_imports(f.content))
      if (auto it = refused_modules().find(mod); it != refused_modules().end())
        return "file '" + f.path + "' imports " + mod +
               ": in a cuda_python solution, which runs inside the test's own interpreter, "
               "that " +
               it->second + " (kjudge refuses it: docs/cheats.md)";
    // Rebinding an attribute of what an import bound: another module's function, class or
    // setting, which the test's own code would then use.
    std::string alternatives;
    for (const std::string& n : imported_names(code))
      alternatives += (alternatives.empty() ? "" : "|") + n;
    std::optional<std::regex> rebinding;
    if (!alternatives.empty())
      rebinding.emplace(
          R"((^|[^\w.])(del\s+)?()" + alternatives +
          R"()\s*(\.\s*\w+\s*)+(=(?!=)|\+=|-=|\*=|/=|//=|%=|\*\*=|&=|\|=|\^=|>>=|<<=|@=|,|$))");
    std::istringstream lines(code);
    std::string line;
    for (int n = 1; std::getline(lines, line); ++n) {
      std::smatch m;
      for (const Feature& feat : features())
        if (std::regex_search(line, m, feat.pattern))
          return "file '" + f.path + "' line " + std::to_string(n) + " uses " + trim(m.str(0)) +
                 ": in a cuda_python solution, which runs inside the test's own interpreter, "
                 "that " +
                 feat.what + " (kjudge refuses it: docs/cheats.md)";
      if (!rebinding) continue;
      for (auto it = std::sregex_iterator(line.begin(), line.end(), *rebinding);
           it != std::sregex_iterator(); ++it) {
        const std::smatch& r = *it;
        const bool del = r[2].matched;
        const std::string op = r[5].str();
        // `a.b,` or a bare `a.b` at the end of a line rebinds only as an assignment's target
        // list (`x, np.y = ...`): an `=` after it, not a comparison.
        if (!del && (op == "," || op.empty())) {
          // Inside brackets it is an argument or an element, never a target.
          int depth = 0;
          for (std::size_t i = 0; i < static_cast<std::size_t>(r.position(3)); ++i)
            depth += std::string("([{").find(line[i]) != std::string::npos   ? 1
                     : std::string(")]}").find(line[i]) != std::string::npos ? -1
                                                                             : 0;
          const auto eq = line.find('=', static_cast<std::size_t>(r.position(3)));
          if (depth > 0 || eq == std::string::npos || line.compare(eq, 2, "==") == 0) continue;
        }
        // An annotation's default (`dtype: torch.dtype = torch.float32`) binds a parameter or
        // a field, not the attribute.
        std::size_t before = static_cast<std::size_t>(r.position(3));
        while (before > 0 && (line[before - 1] == ' ' || line[before - 1] == '\t')) --before;
        if (!del && before > 0 && line[before - 1] == ':') continue;
        const std::string target =
            line.substr(static_cast<std::size_t>(r.position(3)),
                        static_cast<std::size_t>(r.position(0) + r.length(0) - r.position(3)));
        return "file '" + f.path + "' line " + std::to_string(n) + " rebinds " + trim(target) +
               ": in a cuda_python solution, which runs inside the test's own interpreter, "
               "that changes what the test's own code calls (kjudge refuses it: docs/cheats.md)";
      }
    }
  }
  return std::nullopt;
}

}  // namespace kjudge
