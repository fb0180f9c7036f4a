// The one reading of Python import statements that the shadowing rule, doctor's environment
// check and python_escape share. It was checked against Python's own parser (ast) over every
// Python file of ComputeEval 2025-1 to 2026-1 and this repository, and over generated files
// mixing the forms below: the same imports, names and lines.
#include "eval/python_imports.h"

#include <gtest/gtest.h>

namespace kjudge {
namespace {

// Each import as "LINE: statement -> bound name".
std::vector<std::string> read(const std::string& text) {
  std::vector<std::string> out;
  for (const PythonImport& i : parse_python_imports(text)) {
    std::string s = std::to_string(i.line) + ": ";
    if (i.from)
      s += "from " + std::string(static_cast<std::size_t>(i.level), '.') + i.module + " import " +
           i.name;
    else
      s += "import " + i.module;
    if (!i.alias.empty()) s += " as " + i.alias;
    out.push_back(s + " -> " + i.bound);
  }
  return out;
}

using Lines = std::vector<std::string>;

TEST(PythonImports, PlainDottedAliasedAndCommaLists) {
  EXPECT_EQ(read("import os\nimport a.b.c\nimport numpy as np\nimport a.b as c\n"
                 "import sys, cupy as cp, numpy.testing\n"),
            (Lines{"1: import os -> os", "2: import a.b.c -> a", "3: import numpy as np -> np",
                   "4: import a.b as c -> c", "5: import sys -> sys", "5: import cupy as cp -> cp",
                   "5: import numpy.testing -> numpy"}));
  const std::vector<PythonImport> r = parse_python_imports("import a.b\nimport a.b as c\n");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_FALSE(r[0].from);
  EXPECT_EQ(r[0].level, 0);
  EXPECT_EQ(r[0].name, "");
  EXPECT_EQ(r[0].target(), "a") << "`import a.b` binds a to the package a";
  EXPECT_EQ(r[0].top_module(), "a");
  EXPECT_EQ(r[1].target(), "a.b");
  // Any whitespace separates words, as Python's tokenizer has it.
  EXPECT_EQ(read("import\tnumpy  as\tnp\n"), (Lines{"1: import numpy as np -> np"}));
}

TEST(PythonImports, FromImportsInParenthesesOrOverBackslashes) {
  EXPECT_EQ(read("from numpy import testing\nfrom x import a as b, c\n"),
            (Lines{"1: from numpy import testing -> testing", "2: from x import a as b -> b",
                   "2: from x import c -> c"}));
  EXPECT_EQ(read("from x.y import (\n    a,  # the first\n    b as c,\n)\nz = 1\n"),
            (Lines{"1: from x.y import a -> a", "1: from x.y import b as c -> c"}));
  EXPECT_EQ(read("from x import(a,\n              b)\n"),
            (Lines{"1: from x import a -> a", "1: from x import b -> b"}));
  EXPECT_EQ(read("from \\\n    x \\\n    import y\nimport a, \\\n    b\n"),
            (Lines{"1: from x import y -> y", "4: import a -> a", "4: import b -> b"}));
  const std::vector<PythonImport> r = parse_python_imports("from m.n import k as j\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_TRUE(r[0].from);
  EXPECT_EQ(r[0].module, "m.n");
  EXPECT_EQ(r[0].name, "k");
  EXPECT_EQ(r[0].alias, "j");
  EXPECT_EQ(r[0].target(), "m.n.k");
  EXPECT_EQ(r[0].top_module(), "m");
  // A star binds names no reading of the text knows.
  EXPECT_EQ(read("from m import *\n"), (Lines{"1: from m import * -> "}));
}

TEST(PythonImports, RelativeImportsKeepTheirLevel) {
  EXPECT_EQ(read("from . import x\nfrom ..pkg.mod import y as z\nfrom.m import n\n"
                 "from ... import w\n"),
            (Lines{"1: from . import x -> x", "2: from ..pkg.mod import y as z -> z",
                   "3: from .m import n -> n", "4: from ... import w -> w"}));
  const std::vector<PythonImport> r = parse_python_imports("from ..pkg import y\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].level, 2);
  EXPECT_EQ(r[0].module, "pkg");
  EXPECT_EQ(r[0].target(), "..pkg.y");
  EXPECT_EQ(r[0].top_module(), "") << "a relative import names no top-level module";
}

TEST(PythonImports, SemicolonsAndCompoundHeadersSeparateStatements) {
  EXPECT_EQ(read("import a; import b as c; x = 1; from d import e\n"),
            (Lines{"1: import a -> a", "1: import b as c -> c", "1: from d import e -> e"}));
  // A simple statement may follow a compound statement's header on its line. The header's own
  // colons (a lambda's, a slice's, a dict's, an annotation's, `:=`) are not its end.
  EXPECT_EQ(
      read("if x: import a\n"
           "try: import b\n"
           "except ImportError: b = None\n"
           "else: import c; import d\n"
           "with f() as g: from e import f\n"
           "if lambda: 0: import h\n"
           "while (n := 1): import i\n"
           "for k in {1: 2}: import j\n"
           "if x[1:2]: import k\n"
           "def f(a: int = 1) -> dict[str, int]: import l\n"
           "class A: import m\n"
           "async def f(): import n\n"),
      (Lines{"1: import a -> a", "2: import b -> b", "4: import c -> c", "4: import d -> d",
             "5: from e import f -> f", "6: import h -> h", "7: import i -> i", "8: import j -> j",
             "9: import k -> k", "10: import l -> l", "11: import m -> m", "12: import n -> n"}));
}

TEST(PythonImports, StringsAndCommentsAreNotRead) {
  EXPECT_EQ(read("# import os\n"
                 "s = \"import sys\"\n"
                 "t = '''\nimport json\nfrom re import x\n'''\n"
                 "u = 1  # from re import y\n"
                 "c = 'a; import b'; import ok\n"
                 "d = r\"\\\\\"; import after_raw\n"),
            (Lines{"8: import ok -> ok", "9: import after_raw -> after_raw"}));
}

TEST(PythonImports, IndentedImportsCount) {
  // They run when the code around them does: in a function, a branch, a handler, a class.
  EXPECT_EQ(read("def f():\n    import json\n    return json\n"
                 "if True:\n    from os import path\n"
                 "try:\n    import cupy\nexcept ImportError:\n    cupy = None\n"
                 "class K:\n    import math\n"),
            (Lines{"2: import json -> json", "5: from os import path -> path",
                   "7: import cupy -> cupy", "11: import math -> math"}));
}

// Only import statements are read. `__import__` and importlib's functions take a name that may
// be computed; python_escape refuses both by name (`__import__`, the module importlib), so what
// they would load never needs knowing.
TEST(PythonImports, CallsAndOtherUsesOfTheWordsAreNotImports) {
  EXPECT_EQ(read("m = __import__('os')\n"
                 "import importlib\n"
                 "n = importlib.import_module('sys')\n"
                 "raise ValueError('x') from err\n"
                 "def g():\n    yield from gen()\n"
                 "importlib = 1\nfrom_x = 2\nx.import_ = 3\n"),
            (Lines{"2: import importlib -> importlib"}));
}

TEST(PythonImports, LinesEndAsPythonEndsThem) {
  EXPECT_EQ(read("import a\r\nimport b\r\n"), (Lines{"1: import a -> a", "2: import b -> b"}));
  // A lone "\r" ends a line (and the comment on it), as it does for Python.
  EXPECT_EQ(read("# note\rimport os\r\rimport sys\r"),
            (Lines{"2: import os -> os", "4: import sys -> sys"}));
  EXPECT_EQ(read("import numpy \\\r\n    as np\r\n"), (Lines{"1: import numpy as np -> np"}));
}

TEST(PythonImports, OnlyNamesAreBound) {
  // Python's names may hold any letter; what is no name ends the reading.
  EXPECT_EQ(read("import numpy as \xc3\xb1p\n"),
            (Lines{"1: import numpy as \xc3\xb1p -> \xc3\xb1p"}));
  EXPECT_EQ(read("import numpy as np[\nfrom x import a as b.c\n"),
            (Lines{"1: import numpy as np -> np", "2: from x import a as b -> b"}));
  EXPECT_TRUE(read("import\nfrom x\nfrom x import\nimport 1\n").empty());
}

// Python 3.12 lets an f-string's replacement field reuse its quote (`f"{"("}"`): the blanking
// reads that as Python does (its `(` is a string's). A bracket left open all the same (in a file
// Python would not compile) cannot hide the import statements after it.
TEST(PythonImports, AMisreadStringCannotHideTheImportsAfterIt) {
  EXPECT_EQ(read("s = f\"{\"(\"}\"\nimport os\nfrom sys import (\n    exit,\n)\n"),
            (Lines{"2: import os -> os", "3: from sys import exit -> exit"}));
  EXPECT_EQ(read("x = f(\n  1)\nimport os\n"), (Lines{"3: import os -> os"}));
}

TEST(PythonImports, LogicalLinesAndTheirStatements) {
  const std::vector<PythonLogicalLine> lines =
      python_logical_lines("x = (1,\n     2); import a\ny = 3 \\\n  + 4\nz = 5\n");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].number, 1);
  EXPECT_EQ(lines[1].number, 3);
  EXPECT_EQ(lines[2].number, 5);
  EXPECT_EQ(lines[1].text, "y = 3    + 4 ") << "a continuation's backslash is dropped";
  const std::vector<PythonStatement> st = python_statements(lines[0]);
  ASSERT_EQ(st.size(), 2u);
  EXPECT_EQ(st[0].text, "x = (1,      2)");
  EXPECT_FALSE(st[0].is_import);
  EXPECT_EQ(st[1].text, "import a");
  EXPECT_EQ(st[1].line, 2) << "a statement is numbered by the line it starts on";
  EXPECT_EQ(lines[0].text.substr(st[1].offset, st[1].text.size()), "import a");
  ASSERT_TRUE(st[1].is_import);
  ASSERT_EQ(st[1].imports.size(), 1u);
  EXPECT_EQ(st[1].imports[0].line, 2);
  const std::vector<PythonStatement> header =
      python_statements(python_logical_lines("if x: import os\n")[0]);
  ASSERT_EQ(header.size(), 2u);
  EXPECT_EQ(header[0].text, "if x:");
  EXPECT_EQ(header[1].text, "import os");
}

}  // namespace
}  // namespace kjudge
