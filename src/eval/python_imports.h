#pragma once
// Python import statements, read once for every rule that asks what a Python file imports: the
// shadowing rule (solution_rules: which module names a solution's file must not take), doctor's
// environment check (python_check: which modules the problems need) and python_escape (which
// modules a cuda_python solution may not import, and which names its imports bind). The last is
// a check against adversarial code, so the reading is Python's own as far as a text reading
// goes: comments and string contents are not code; "\r\n" and a lone "\r" end a line; a
// statement continues over brackets and backslashes; `;` separates statements, and a compound
// statement's header (`if x:`, `try:`, `else:`) may be followed by one on the same line; any
// whitespace separates words. Imports at any indentation (in a function, an `if` or a `try`)
// count: they run when that code does.
//
// Only import statements are imports here. `__import__('m')`, `importlib.import_module('m')`
// and the like are calls, whose argument may be computed; python_escape refuses them by name.
#include <cstddef>
#include <string>
#include <vector>

namespace kjudge {

// One logical line of a Python file's code: a statement continued in brackets or after a
// backslash is one line, its newlines made spaces (a continuation's backslash dropped),
// numbered by the physical line it starts on. Comments and string contents are blanked (as
// strip_python does: an f-string's replacement fields stay, as the code they are), so no bracket,
// `;` or word of theirs is read. A byte order mark that starts the file is dropped, as Python
// drops it.
struct PythonLogicalLine {
  int number = 0;
  std::string text;
  std::vector<std::size_t> breaks;  // where in `text` its second, third, ... physical lines begin
  // The physical line that `text[offset]` lies on.
  int line_at(std::size_t offset) const;
};

// `text`'s logical lines. A physical line inside brackets that is itself an import statement
// (`import x`, `from x import y`), which valid Python never has, starts a logical line of its
// own: a bracket left open by what the blanking misread (a file Python would not compile)
// cannot hide the imports after it.
std::vector<PythonLogicalLine> python_logical_lines(const std::string& text);

// One import statement's bindings: `import a.b as c, d` gives two, `from ..m import (x, y as z)`
// two.
struct PythonImport {
  int line = 0;        // the physical line its statement starts on
  bool from = false;   // `from M import N`
  int level = 0;       // a relative from-import's leading dots (`from ..m import n`: 2)
  std::string module;  // `a.b` of `import a.b` and of `from a.b import c`, without the dots
                       // (`from . import n`: "")
  std::string name;    // what a from-import takes from the module: `c`, or `*`; "" otherwise
  std::string alias;   // the name after `as`, or ""
  std::string bound;   // the name the statement binds: the alias, else `a` of `import a.b`,
                       // else the from-import's name; "" for `from m import *`
  // What `bound` names: `import a.b` binds a to "a", `import a.b as c` c to "a.b", `from .m import
  // n` n to ".m.n".
  std::string target() const;
  // The top-level module an absolute import loads first (`a` of `import a.b` and of `from a.b
  // import c`); "" for a relative one.
  std::string top_module() const;
};

// One statement of a logical line: the line split at each `;`, and a compound statement's
// header (`if x:`, `try:`, `with f() as g:`, `def f():`) set apart from what follows it on the
// same line.
struct PythonStatement {
  int line = 0;                       // the physical line it starts on
  std::size_t offset = 0;             // where it starts in its logical line's text
  std::string text;                   // as written there, without the whitespace around it
  bool is_import = false;             // an `import` or `from ... import` statement
  std::vector<PythonImport> imports;  // what it binds, when it is one
};
std::vector<PythonStatement> python_statements(const PythonLogicalLine& line);

// Every import statement of a Python file, in the order they are written.
std::vector<PythonImport> parse_python_imports(const std::string& text);

}  // namespace kjudge
