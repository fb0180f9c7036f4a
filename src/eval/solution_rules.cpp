#include "eval/solution_rules.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>

#include "core/text.h"
#include "eval/python_imports.h"
#include "eval/python_modules.h"
#include "eval/source_kinds.h"
#include "eval/static_flags.h"
#include "eval/workspace.h"

namespace kjudge {

namespace {

namespace fs = std::filesystem;

// "a/./b/" → "a/b"; the workspace itself is "".
std::string normal(const std::string& path) {
  std::string n = fs::path(path).lexically_normal().generic_string();
  while (!n.empty() && n.back() == '/') n.pop_back();
  return n == "." ? "" : n;
}

std::string dir_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

std::string join(const std::string& dir, const std::string& name) {
  return normal(dir.empty() ? name : dir + "/" + name);
}

// `path` lies somewhere below folder `dir` ("" holds everything).
bool under(const std::string& path, const std::string& dir) {
  return dir.empty() || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
                         path[dir.size()] == '/');
}

std::string file_name(const std::string& path) { return path.substr(path.rfind('/') + 1); }

// ".cu" of "a/b.CU"; "" when the name has none.
std::string extension(const std::string& path) {
  const std::string name = file_name(path);
  const auto dot = name.rfind('.');
  return dot == std::string::npos || dot == 0 ? "" : lower(name.substr(dot));
}

// Files a compiler takes as a translation unit, never looks up as a header by name alone.
bool is_source(const std::string& path) {
  static const std::set<std::string> kSources = {".cu", ".cpp", ".cc", ".cxx",
                                                 ".c",  ".c++", ".cp", ".py"};
  return kSources.count(extension(path)) > 0;
}

// Code no source needs and a loader or interpreter would run: shared objects, archives, object
// files, Python bytecode (an unchecked-hash .pyc is imported without looking at its source).
std::optional<std::string> compiled_code(const std::string& path) {
  std::size_t start = 0;
  while (start <= path.size()) {
    const auto end = std::min(path.find('/', start), path.size());
    if (path.compare(start, end - start, "__pycache__") == 0 && end - start == 11)
      return std::string(
          "a __pycache__ folder (Python would import its bytecode in place of a "
          "module's source)");
    start = end + 1;
  }
  static const std::set<std::string> kCompiled = {".o",   ".obj", ".a",   ".so",    ".dylib",
                                                  ".dll", ".lib", ".pyc", ".pyo",   ".pyd",
                                                  ".pth", ".egg", ".whl", ".cubin", ".fatbin"};
  const std::string ext = extension(path);
  const std::string name = lower(file_name(path));
  if (kCompiled.count(ext) || name.find(".so.") != std::string::npos)
    return "compiled code or a loader's file (" + (ext.empty() ? name : ext) +
           "): a solution brings sources only";
  return std::nullopt;
}

// Words of a command line as the shell splits simple ones: quotes removed, nothing expanded.
std::vector<std::string> shell_words(const std::string& command) {
  std::vector<std::string> out;
  std::string cur;
  bool in_word = false;
  char quote = 0;
  for (char c : command) {
    if (quote) {
      if (c == quote)
        quote = 0;
      else
        cur += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (std::isspace(static_cast<unsigned char>(c)) || c == ';' || c == '&' || c == '|') {
      if (in_word) out.push_back(cur);
      cur.clear();
      in_word = false;
    } else {
      cur += c;
      in_word = true;
    }
  }
  if (in_word) out.push_back(cur);
  return out;
}

// The words, with -Xcompiler / --compiler-options lists opened up: "-Xcompiler -Ia,-Ib" gives
// "-Ia" and "-Ib".
std::vector<std::string> compiler_words(const std::string& command) {
  std::vector<std::string> out;
  const std::vector<std::string> words = shell_words(command);
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::string w = words[i];
    std::string list;
    for (const char* opt : {"-Xcompiler", "--compiler-options"}) {
      const std::string o = opt;
      if (w == o && i + 1 < words.size()) list = words[++i];
      if (w.rfind(o + "=", 0) == 0) list = w.substr(o.size() + 1);
    }
    if (list.empty()) {
      out.push_back(w);
      continue;
    }
    std::size_t start = 0;
    while (start <= list.size()) {
      const auto end = std::min(list.find(',', start), list.size());
      if (end > start) out.push_back(list.substr(start, end - start));
      start = end + 1;
    }
  }
  return out;
}

// Values of an option that takes one: "-Ix", "-I x", "-I=x", "--include-path=x".
std::vector<std::string> option_values(const std::vector<std::string>& words,
                                       const std::vector<std::string>& options) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    for (const std::string& o : options) {
      if (w == o) {
        if (i + 1 < words.size()) out.push_back(words[i + 1]);
      } else if (w.rfind(o, 0) == 0) {
        std::string v = w.substr(o.size());
        if (!v.empty() && v.front() == '=') v.erase(0, 1);
        // "-include" begins with "-I" in no case (case matters), but "-isystemfoo" begins with
        // "-i": only the options asked for are read, longest first by the caller's order.
        if (!v.empty()) out.push_back(v);
      } else {
        continue;
      }
      break;
    }
  }
  return out;
}

bool runs_nvcc(const std::vector<std::string>& words) {
  for (const std::string& w : words)
    if (w == "nvcc" || (w.size() > 5 && w.compare(w.size() - 5, 5, "/nvcc") == 0)) return true;
  return false;
}

// Programs the commands build or run by a path: `-o test.out`, `./test.out`.
std::set<std::string> named_programs(const Problem& p) {
  std::set<std::string> out;
  if (p.build_command) {
    for (const std::string& v :
         option_values(shell_words(*p.build_command), {"--output-file", "-o"}))
      if (!v.empty() && v.front() != '/') out.insert(normal(v));
  }
  for (const std::string* c :
       {&p.test_command,
        p.benchmark_command ? &*p.benchmark_command : static_cast<std::string*>(nullptr)}) {
    if (!c) continue;
    for (const std::string& w : shell_words(*c))
      if (w.find('=') == std::string::npos) {
        if (w.find('/') != std::string::npos && w.front() != '/') out.insert(normal(w));
        break;
      }
  }
  return out;
}

// Folders Python puts ahead of the standard library for the test: PYTHONPATH=… in the commands
// (relative entries), and the workspace itself, where the test command runs.
std::vector<std::string> python_path_dirs(const Problem& p) {
  std::set<std::string> dirs = {""};
  for (const std::string* c :
       {&p.test_command,
        p.benchmark_command ? &*p.benchmark_command : static_cast<std::string*>(nullptr)}) {
    if (!c) continue;
    for (const std::string& w : shell_words(*c)) {
      if (w.rfind("PYTHONPATH=", 0) != 0) continue;
      const std::string list = w.substr(11);
      std::size_t start = 0;
      while (start <= list.size()) {
        const auto end = std::min(list.find(':', start), list.size());
        const std::string d = list.substr(start, end - start);
        if (!d.empty() && d.front() != '/' && d.front() != '$') dirs.insert(normal(d));
        start = end + 1;
      }
    }
  }
  return {dirs.begin(), dirs.end()};
}

bool runs_python(const Problem& p) {
  if (p.type == "cuda_python") return true;
  for (const auto* files : {&p.test_files, &p.context_files})
    for (const SourceFile& f : *files)
      if (extension(f.path) == ".py") return true;
  return false;
}

// The top-level names a Python text's imports look up on the module path, which a solution's
// file must not take: each absolute import's module (`a` of `import a.b` and of `from a.b import
// c`), and each name a from-import takes (`c`, which may be a module of package `a`).
std::set<std::string> shadowable_imports(const std::string& text) {
  std::set<std::string> out;
  for (const PythonImport& i : parse_python_imports(text)) {
    if (!i.top_module().empty()) out.insert(i.top_module());
    if (i.from && i.name != "*") out.insert(i.name);
  }
  return out;
}

// Why the bytes of a path make it unsafe to hand to tools, or nullopt.
std::optional<std::string> unsafe_name(const std::string& path, const SolutionLimits& limits) {
  if (!is_safe_relative_path(path)) return "is absolute or leaves the workspace";
  for (unsigned char c : path)
    if (c < 0x20 || c == 0x7F) return "has a control character in its name";
  if (path.size() > limits.max_path_bytes)
    return "has a path of " + std::to_string(path.size()) + " bytes; the limit is " +
           std::to_string(limits.max_path_bytes);
  std::size_t depth = 0, start = 0;
  while (start <= path.size()) {
    const auto end = std::min(path.find('/', start), path.size());
    const std::string part = path.substr(start, end - start);
    if (!part.empty() && part.front() == '-')
      return "has a name beginning with '-', which a build's glob would pass as an option";
    if (part.rfind(".kjudge", 0) == 0)
      return "has a name kjudge keeps for itself in the workspace (.kjudge…: the steps' TMPDIR)";
    if (part.size() > limits.max_component_bytes)
      return "has a name of " + std::to_string(part.size()) + " bytes; the limit is " +
             std::to_string(limits.max_component_bytes);
    if (end < path.size() && !part.empty() && part != ".") ++depth;
    start = end + 1;
  }
  if (depth > limits.max_depth)
    return "lies " + std::to_string(depth) + " folders deep; the limit is " +
           std::to_string(limits.max_depth);
  return std::nullopt;
}

struct ProblemTree {
  std::set<std::string> files;  // every context and test file, normalised
  std::set<std::string> dirs;   // every folder above one of them
  std::set<std::string> test_dirs;
  std::set<std::string> expected;   // the baseline's files: what the problem asks a solution for
  std::vector<std::string> search;  // the build's header folders, in order
  std::vector<std::string> forced;  // force-included header names
  std::set<std::string> programs;
};

ProblemTree tree_of(const Problem& p) {
  ProblemTree t;
  for (const auto* files : {&p.context_files, &p.test_files})
    for (const SourceFile& f : *files) {
      const std::string n = normal(f.path);
      t.files.insert(n);
      for (std::string d = dir_of(n); !d.empty(); d = dir_of(d)) t.dirs.insert(d);
    }
  for (const SourceFile& f : p.test_files)
    if (const std::string d = dir_of(normal(f.path)); !d.empty()) t.test_dirs.insert(d);
  if (p.baseline_solution)
    for (const SourceFile& f : p.baseline_solution->files) t.expected.insert(normal(f.path));
  if (p.build_command) {
    t.search = include_search_dirs(*p.build_command);
    t.forced = forced_includes(*p.build_command);
  }
  t.programs = named_programs(p);
  return t;
}

struct Lookup {
  std::string includer;  // the problem file whose directive it is
  std::string name;      // as written
};

}  // namespace

std::set<std::string> python_module_imports(const std::string& text) {
  std::set<std::string> out;
  for (const PythonImport& i : parse_python_imports(text))
    if (!i.top_module().empty()) out.insert(i.top_module());
  return out;
}

std::vector<std::string> include_search_dirs(const std::string& build_command) {
  std::vector<std::string> out;
  for (const std::string& v :
       option_values(compiler_words(build_command),
                     {"--include-path", "-isystem", "-iquote", "-idirafter", "-I"}))
    if (v.front() != '/' && v.front() != '$' && v.front() != '~') {
      const std::string d = normal(v);
      if (std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
    }
  return out;
}

std::vector<std::string> forced_includes(const std::string& build_command) {
  const std::vector<std::string> words = compiler_words(build_command);
  std::vector<std::string> out;
  if (runs_nvcc(words)) out.push_back("cuda_runtime.h");
  for (const std::string& v : option_values(words, {"--pre-include", "-include"}))
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  return out;
}

IncludeNames include_names(const std::string& text) {
  IncludeNames out;
  const StrippedSource s = strip_c_like(text);
  std::multimap<int, std::string> literals;
  for (const StringLiteral& l : s.literals) literals.emplace(l.line, l.text);
  int line = 1;
  std::size_t pos = 0;
  while (pos < s.code.size()) {
    const auto end = std::min(s.code.find('\n', pos), s.code.size());
    std::string l = s.code.substr(pos, end - pos);
    const int this_line = line;
    pos = end + 1;
    ++line;
    std::size_t i = l.find_first_not_of(" \t");
    if (i == std::string::npos || l[i] != '#') continue;
    i = l.find_first_not_of(" \t", i + 1);
    if (i == std::string::npos) continue;
    bool directive = false;
    for (const char* d : {"include_next", "include", "import"}) {
      const std::size_t n = std::char_traits<char>::length(d);
      if (l.compare(i, n, d) == 0 &&
          (i + n == l.size() || !std::isalnum(static_cast<unsigned char>(l[i + n])))) {
        i += n;
        directive = true;
        break;
      }
    }
    if (!directive) continue;
    i = l.find_first_not_of(" \t", i);
    if (i != std::string::npos && l[i] == '"' && literals.count(this_line)) {
      out.quoted.push_back(literals.find(this_line)->second);
    } else if (i != std::string::npos && l[i] == '<' && l.find('>', i) != std::string::npos) {
      out.angled.push_back(l.substr(i + 1, l.find('>', i) - i - 1));
    } else {
      out.computed = true;
    }
  }
  return out;
}

std::optional<std::string> changes_the_includer(const std::string& text) {
  const std::string code = strip_c_like(text).code;
  if (code.find("_Pragma") != std::string::npos || code.find("__pragma") != std::string::npos)
    return std::string("a _Pragma operator");
  std::set<std::string> guards;  // names an #ifndef has tested: an include guard may define one
  int line = 1;
  std::size_t pos = 0;
  while (pos < code.size()) {
    // A directive continues over backslash-newlines.
    std::string l;
    const int first_line = line;
    for (;;) {
      const auto end = std::min(code.find('\n', pos), code.size());
      l += code.substr(pos, end - pos);
      pos = end + 1;
      ++line;
      if (l.empty() || l.back() != '\\' || pos >= code.size()) break;
      l.pop_back();
    }
    std::size_t i = l.find_first_not_of(" \t");
    if (i == std::string::npos || l[i] != '#') continue;
    auto word_at = [&](std::size_t& k) {
      k = l.find_first_not_of(" \t", k);
      if (k == std::string::npos) k = l.size();
      const std::size_t start = k;
      while (k < l.size() && (std::isalnum(static_cast<unsigned char>(l[k])) || l[k] == '_')) ++k;
      return l.substr(start, k - start);
    };
    ++i;
    const std::string name = word_at(i);
    const std::string arg = word_at(i);
    const std::string more = i < l.size() ? l.substr(i) : "";
    const std::string where = "line " + std::to_string(first_line) + ": #" + name;
    static const std::set<std::string> kKeep = {"include", "if",      "ifdef",   "elif",
                                                "else",    "endif",   "elifdef", "elifndef",
                                                "error",   "warning", ""};
    if (kKeep.count(name)) continue;
    if (name == "ifndef") {
      guards.insert(arg);
      continue;
    }
    if (name == "pragma" && (arg == "once" || arg == "unroll" || arg == "nounroll")) continue;
    const auto value = more.find_first_not_of(" \t");
    if (name == "define" && guards.count(arg) &&
        (value == std::string::npos || more.substr(value) == "1"))
      continue;
    return where + (arg.empty() ? "" : " " + arg);
  }
  return std::nullopt;
}

std::set<std::string> python_protected_modules(const Problem& problem,
                                               const std::set<std::string>& extra) {
  std::set<std::string> out = python_stdlib_modules();
  out.insert(python_stack_modules().begin(), python_stack_modules().end());
  out.insert(extra.begin(), extra.end());
  for (const auto* files : {&problem.context_files, &problem.test_files})
    for (const SourceFile& f : *files) {
      if (extension(f.path) != ".py") continue;
      for (const std::string& m : shadowable_imports(f.content)) out.insert(m);
    }
  return out;
}

std::optional<std::string> check_solution_files(const Problem& problem, const Solution& solution,
                                                const SolutionLimits& limits,
                                                const std::set<std::string>& python_modules) {
  if (solution.files.empty()) return "the solution has no files";
  if (solution.files.size() > limits.max_files)
    return "the solution has " + std::to_string(solution.files.size()) + " files; the limit is " +
           std::to_string(limits.max_files);
  std::size_t bytes = 0;
  for (const SourceFile& f : solution.files) bytes += f.content.size();
  if (bytes > limits.max_bytes)
    return "the solution's files hold " + std::to_string(bytes) + " bytes; the limit is " +
           std::to_string(limits.max_bytes);

  const ProblemTree tree = tree_of(problem);
  std::map<std::string, std::string> mine;  // normalised path → as written
  for (const SourceFile& f : solution.files) {
    auto refuse = [&](const std::string& why) {
      return std::optional<std::string>("file '" + f.path + "' " + why);
    };
    if (auto bad = unsafe_name(f.path, limits)) return refuse(*bad);
    const std::string n = normal(f.path);
    if (!mine.emplace(n, f.path).second) return refuse("appears twice");
    if (tree.files.count(n)) return refuse("would overwrite the problem's file " + n);
    if (tree.dirs.count(n)) return refuse("is the name of one of the problem's folders");
    for (std::string d = dir_of(n); !d.empty(); d = dir_of(d))
      if (tree.files.count(d))
        return refuse("would put a folder in place of the problem's file " + d);
    for (const std::string& d : tree.test_dirs)
      if (under(n, d)) return refuse("lies in the hidden tests' folder " + d + "/");
    if (auto bad = compiled_code(n)) return refuse("is " + *bad);
    if (tree.programs.count(n))
      return refuse("is named like a program the problem's commands build or run");
    for (const std::string& d : tree.search)
      if (under(n, d) && !is_source(n))
        return refuse("lies in " + (d.empty() ? std::string("the workspace") : d + "/") +
                      ", which the build searches for headers: it could be found in place of a "
                      "system, toolkit or context header");
    for (const std::string& h : tree.forced) {
      bool found = n == normal(h);  // looked up in the working directory first
      for (const std::string& d : tree.search) found |= n == join(d, h);
      if (found) return refuse("would be force-included in place of " + h);
    }
  }
  // A file a folder of the solution's and a file of it at once.
  for (const auto& [p, written] : mine)
    for (const auto& [q, other] : mine)
      if (under(q, p))
        return "file path '" + written + "' is also used as a folder by '" + other + "'";

  // What the problem's own #include directives find, walking their search order: the includer's
  // folder for a quoted name, then the build's folders. The first file that exists wins.
  std::set<std::string> textual;  // solution files compiled into a problem file's unit
  std::string textual_by;
  for (const auto* files : {&problem.context_files, &problem.test_files})
    for (const SourceFile& f : *files) {
      if (!is_c_like(f.path)) continue;
      const std::string includer = normal(f.path);
      const std::string here = dir_of(includer);
      const IncludeNames names = include_names(f.content);
      if (names.computed)
        for (const auto& [n, written] : mine)
          if (dir_of(n) == here && !is_source(n))
            return "file '" + written + "' lies beside " + includer +
                   ", whose computed #include could name any file there";
      for (int quoted = 1; quoted >= 0; --quoted)
        for (const std::string& name : quoted ? names.quoted : names.angled) {
          std::vector<std::string> chain;
          if (quoted) chain.push_back(join(here, name));
          for (const std::string& d : tree.search) chain.push_back(join(d, name));
          for (std::size_t i = 0; i < chain.size(); ++i) {
            const std::string& c = chain[i];
            if (tree.files.count(c)) break;  // the problem's own file: what its authors meant
            if (!mine.count(c)) continue;
            bool problem_later = false;
            for (std::size_t k = i + 1; k < chain.size(); ++k)
              problem_later |= tree.files.count(chain[k]) > 0;
            if (problem_later || (!is_source(c) && !tree.expected.count(c)))
              return "file '" + mine[c] + "' would be found by " + includer + "'s #include " +
                     (quoted ? "\"" + name + "\"" : "<" + name + ">") + " in place of " +
                     (problem_later ? "the problem's own file" : "a system or toolkit header");
            textual.insert(c);
            textual_by = includer;
            break;
          }
        }
    }
  // Text of the solution's that the hidden test compiles in its own unit must not change the
  // macros the test's code sees after it. Every C-like file of the solution may be reached from
  // the one included, so all are read.
  if (!textual.empty())
    for (const SourceFile& f : solution.files) {
      if (!is_c_like(f.path)) continue;
      if (auto bad = changes_the_includer(f.content))
        return "file '" + f.path + "' is compiled into the hidden test's own translation unit (" +
               textual_by + " includes " + *textual.begin() +
               ") and would change what the test's code means (" + *bad + ")";
    }

  if (runs_python(problem)) {
    const std::set<std::string> protect = python_protected_modules(problem, python_modules);
    std::set<std::string> own;  // the modules the problem asks the solution for
    for (const std::string& e : tree.expected) own.insert(e.substr(0, e.find_first_of("./")));
    for (const std::string& dir : python_path_dirs(problem))
      for (const auto& [n, written] : mine) {
        if (!under(n, dir)) continue;
        const std::string rel = dir.empty() ? n : n.substr(dir.size() + 1);
        std::string module = rel.substr(0, rel.find('/'));
        if (rel.find('/') == std::string::npos) {
          if (extension(rel) != ".py") continue;
          module = module.substr(0, module.size() - 3);
        }
        if (protect.count(module) && !own.count(module))
          return "file '" + written + "' would be imported as the module '" + module +
                 "' in place of the one the test or its libraries import";
      }
  }
  return std::nullopt;
}

}  // namespace kjudge
