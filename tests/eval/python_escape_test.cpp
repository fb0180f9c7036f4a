// A cuda_python solution runs inside the test's own interpreter: the features through which it
// could decide the verdict instead of the test are refused (exit at import, rebinding the test's
// comparison, reaching frames or builtins), while every honest solution we have is judged:
// the CuPy examples' baselines and solutions and ComputeEval 2026-1's 48 cuTile baselines.
#include "eval/python_escape.h"

#include <gtest/gtest.h>

#include "core/datapack.h"
#include "core/problem_dir.h"
#include "eval/solution_rules.h"
#include "test_util.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;

Problem cuda_python() {
  Problem p;
  p.task_id = "cupy/t";
  p.type = "cuda_python";
  return p;
}

std::optional<std::string> judge(const std::string& code) {
  Solution s;
  s.task_id = "cupy/t";
  s.files.push_back({"solution.py", code});
  return python_escape(cuda_python(), s);
}

TEST(PythonEscape, EndingTheTestsProcessIsRefusedWithItsLine) {
  for (const char* code :
       {"import os\nos._exit(0)\n", "raise SystemExit(0)\n", "import sys\n\nsys.exit(0)\n",
        "exit(0)\n", "quit()\n", "import os\nos.kill(os.getpid(), 9)\n", "import atexit\n",
        "from os import _exit\n_exit(0)\n"}) {
    const auto why = judge(code);
    ASSERT_TRUE(why) << code;
    EXPECT_NE(why->find("solution.py"), std::string::npos) << *why;
  }
  EXPECT_NE(judge("import cupy\n\nraise SystemExit(0)\n")->find("line 3"), std::string::npos);
}

TEST(PythonEscape, RebindingWhatAnotherModuleDefinesIsRefused) {
  for (const char* code : {
           "import numpy as np\nnp.testing.assert_allclose = lambda *a, **k: None\n",
           "import numpy\nnumpy.testing.assert_array_equal = print\n",
           "from numpy import testing\ntesting.assert_allclose = print\n",
           "import numpy.testing as npt\nnpt.assert_allclose=print\n",
           "import torch\ntorch.testing.assert_close = lambda *a, **k: None\n",
           "import torch\ntorch.backends.cuda.matmul.allow_tf32 = True\n",
           "import numpy as np\nx, np.allclose = 1, print\n",
           "import numpy as np\ndel np.testing\n",
           "from numpy import (\n    testing,\n)\ntesting.assert_allclose = print\n",
           "import cupy as cp\ncp.ndarray.__eq__ = lambda a, b: True\n",
       })
    EXPECT_TRUE(judge(code)) << code;
}

// What one who has read the rules above would try next: the same functions under another name,
// through another module, or the same rebinding written another way.
TEST(PythonEscape, AliasesPathsAndOtherSpellingsAreRefusedToo) {
  for (const char* code : {
           "import os as o\no._exit(0)\n",
           "import posix\n",
           "import sys as s\ns.exit(0)\n",
           "import sys as s\nm = s.modules\n",
           "import os\nf = getattr(os, '_ex' + 'it')\n",
           "import os\nm = os\n",
           "import cupy as cp\ncp._environment.os._exit(0)\n",
           "import numpy as np\n(np.testing\n    .assert_allclose) = print\n",
           "import numpy as np\nnp.testing.assert_allclose \\\n    = print\n",
           "import numpy as np\n(np.testing.assert_allclose) = print\n",
           "import numpy as np\nnp.testing.assert_allclose: object = print\n",
           "import numpy as np\nfor np.testing.assert_allclose in [print]:\n    pass\n",
           "import numpy as np\nimport contextlib\n"
           "with contextlib.nullcontext(print) as np.testing.assert_allclose:\n    pass\n",
           "import numpy as np\n*np.testing.assert_allclose, = [print]\n",
           "import numpy as np\nx = 1; np.testing.assert_allclose: object = print\n",
           "import numpy as np\nif True: np.testing.assert_allclose: object = print\n",
           "import numpy as np\n(np.testing.assert_allclose): object = print\n",
       }) {
    const auto why = judge(code);
    EXPECT_TRUE(why) << code;
  }
  EXPECT_NE(
      judge("import numpy as np\n\n(np.testing\n    .assert_allclose) = print\n")->find("line 3"),
      std::string::npos)
      << "a statement over several lines is named by its first";
}

TEST(PythonEscape, ReachingIntoTheInterpreterIsRefused) {
  for (const char* code : {
           "import sys\nsys.modules['numpy'].testing = None\n",
           "import sys\nf = sys._getframe(1)\n",
           "import gc\n",
           "import inspect\n",
           "import builtins\n",
           "import ctypes\n",
           "__builtins__['print'] = None\n",
           "m = __import__('numpy')\n",
           "setattr(m, 'x', 1)\n",
           "g = globals()\n",
           "exec('x = 1')\n",
           "eval('1')\n",
           "def f():\n    pass\nf.__code__ = None\n",
           "try:\n    1 / 0\nexcept Exception as e:\n    e.__traceback__.tb_frame.f_back\n",
           "import subprocess\n",
           "import os\nos.system('true')\n",
           "import sys\nsys.settrace(None)\n",
           "import signal\n",
       })
    EXPECT_TRUE(judge(code)) << code;
}

// What honest CuPy code does: compile CUDA source held in strings, configure its own objects,
// compare, pass keyword arguments, name a variable `signal`.
TEST(PythonEscape, HonestCodeIsJudged) {
  for (const char* code : {
           "import cupy as cp\nK = cp.RawKernel(r'''extern \"C\" __global__ void k() { exit(0); "
           "}''',"
           " 'k')\n",
           "import re\nPAT = re.compile('x')\n",
           "import cupy as cp\nDTYPES = (cp.float32, cp.float64)\n",
           "import cupy as cp\nsignal = cp.zeros(4)\nspectrum = signal.sum()\n",
           "import cupy as cp\ndef f(a):\n    return cp.asarray(a, dtype=cp.float32)\n",
           "import cupy as cp\nclass K:\n    def __init__(self):\n        self.n = cp.int32(4)\n",
           "import numpy as np\nok = np.float32 == np.dtype('float32')\n",
           "import cupy as cp\nf(cp.float32, x=1)\n",
           "import cupy as cp\n# os._exit(0) in a comment\nx = 'sys.exit(0)'\n",
           "import cupy as cp\nout = cp.empty(4)\nout[0] = 1\nout.fill(0)\n",
           "import math\nTILE = math.ceil(3.5)\n",
           "import os\nN = int(os.environ.get('N', '4'))\np = os.path.join('a', 'b')\n",
           "import cupy as cp\nfor x in cp.arange(3):\n    pass\n",
           "import cupy as cp\nys = [cp.asarray(x) for x in range(3)]\n",
           "import cupy as cp\ny = f(cp.float32,\n      dtype=cp.float32)\n",
           "import cupy as cp\nwith cp.cuda.Device(0) as dev:\n    pass\n",
           "import cupy as cp\nd = {cp.float32: 'f'}\n",
       })
    EXPECT_FALSE(judge(code)) << code << "\n" << judge(code).value_or("");
}

TEST(PythonEscape, OnlyCudaPythonProblemsAndPythonFiles) {
  Solution s;
  s.task_id = "t";
  s.files.push_back({"solution.py", "import os\nos._exit(0)\n"});
  Problem cpp;
  EXPECT_FALSE(python_escape(cpp, s)) << "cuda_cpp problems have their own main guard";
  s.files = {{"notes.txt", "os._exit(0)"}};
  EXPECT_FALSE(python_escape(cuda_python(), s));
}

TEST(PythonEscape, TheCupyExamplesAreJudgedAndItsCheatsRefused) {
  const fs::path root = fs::path(KJUDGE_SOURCE_DIR) / "examples/cupy";
  for (const Problem& p : load_problem_dirs(root / "pack", nullptr)) {
    ASSERT_TRUE(p.baseline_solution) << p.task_id;
    EXPECT_FALSE(python_escape(p, *p.baseline_solution)) << p.task_id;
  }
  // The cheats' folders are named cheat-*; every other solution is honest (it may be wrong).
  for (const auto& entry : fs::directory_iterator(root / "solutions")) {
    const std::string name = entry.path().filename().string();
    for (const Solution& s : load_solution_dirs(entry.path(), nullptr)) {
      const auto why = python_escape(cuda_python(), s);
      EXPECT_EQ(why.has_value(), name.rfind("cheat-", 0) == 0) << name << ": " << why.value_or("");
    }
  }
}

TEST(PythonEscape, ComputeEvalsCuTileBaselinesAreJudged) {
  const fs::path pack =
      fs::path(KJUDGE_SOURCE_DIR) / "../shared/datasets/compute-eval/2026-1-problems.tar.gz";
  if (!fs::exists(pack)) GTEST_SKIP() << "shared dataset missing: " << pack;
  int n = 0;
  for (const Problem& p : read_problem_pack(pack, nullptr).problems) {
    if (p.type != "cuda_python") continue;
    ++n;
    ASSERT_TRUE(p.baseline_solution) << p.task_id;
    const auto why = python_escape(p, *p.baseline_solution);
    EXPECT_FALSE(why) << p.task_id << ": " << why.value_or("");
  }
  EXPECT_EQ(n, 48);
}

// Imports read as Python reads them (eval/python_imports, shared with the shadowing rule and
// doctor): an import after `;` or a compound statement's header, over a backslash, with tabs,
// binding a name twice, in a file with \r line endings. Each of these was judged before the
// reading was shared.
TEST(PythonEscape, ImportsAreReadAsPythonReadsThem) {
  for (const char* code : {
           "import os; m = os\n",
           "import sys; sys.modules['numpy'].testing = None\n",
           "import numpy as np; np.testing.assert_allclose = print\n",
           "if True: import numpy as np\nnp.testing.assert_allclose = print\n",
           "try: import ctypes\nexcept ImportError: pass\n",
           "from \\\n    ctypes import CDLL\n",
           "import\tnumpy as np\nnp.testing.assert_allclose = print\n",
           "import numpy as\tnp\nnp.testing.assert_allclose = print\n",
           "import os.path\nf = getattr(os, '_ex' + 'it')\n",
           "if c:\n    import os as o\nelse:\n    import numpy as o\nf = getattr(o, '_ex' + "
           "'it')\n",
           "import numpy \\\r\n    as np\r\nnp.testing.assert_allclose = print\r\n",
           "# a comment\rimport os\ros._exit(0)\r",
       }) {
    const auto why = judge(code);
    EXPECT_TRUE(why) << code;
  }
  EXPECT_NE(judge("import cupy\r\rraise SystemExit(0)\r").value_or("").find("line 3"),
            std::string::npos)
      << "a lone \\r ends a line, as it does for Python";
  // A compound statement's header before the import is not a use of the module it binds, and an
  // alias that is no name cannot break the rule's own patterns.
  EXPECT_FALSE(judge("import sys\nif sys.platform == 'linux': import os\nN = os.cpu_count()\n"));
  EXPECT_NO_THROW(judge("import numpy as np[\n"));
}

// An f-string's replacement fields are code that Python runs when the line does: the blanking
// of strings keeps them (eval/static_flags: strip_python), so every rule above reads them. Each
// form of the literal: nested fields, a field in a format spec, a conversion, raw, triple-quoted,
// a field that reuses the f-string's own quote (Python 3.12), a backslash before a field, a field
// over lines, and Python 3.14's template strings, whose fields run too.
TEST(PythonEscape, FStringFieldsAreReadAsCode) {
  for (const char* code : {
           "x = f\"{exit(0)}\"\n",
           "x = F'{quit()}'\n",
           "import os\nx = f\"{len(f'{os._exit(0)}')}\"\n",
           "import os\nx = f\"{3:{os._exit(0)}}\"\n",
           "import os\nx = f\"{3:>{10}.{os._exit(0)}}\"\n",
           "import os\nx = f\"{os._exit(0)!r:>10}\"\n",
           "import os\nx = rf\"\\d+ {os._exit(0)}\"\n",
           "import os\nx = fR'{os._exit(0)}'\n",
           "import os\nx = Rf'{os._exit(0)}'\n",
           "import sys\nx = f\"\"\"\nmodules: {sys.modules['numpy']}\n\"\"\"\n",
           "import sys\nx = f'''{\n  sys.modules}'''\n",
           "import os\nx = f\"{\"a\" + str(os._exit(0))}\"\n",
           "import os\nd = {}\nx = f\"{d[\"k\"]} {os._exit(0)}\"\n",
           "import os\nx = f\"{f\"{f\"{os._exit(0)}\"}\"}\"\n",
           "import os\nx = f\"\\{os._exit(0)}\"\n",
           "import os\nx = rf\"\\{os._exit(0)}\"\n",
           "import os\nx = f\"{{{os._exit(0)}}}\"\n",
           "import os\nx = f\"{\n    os._exit(0)}\"\n",
           "import os\nx = t\"{os._exit(0)}\"\n",
           "import os\nx = tr'{os._exit(0)}'\n",
           "x = f\"{(_ for _ in ()).throw(SystemExit)}\"\n",
           "import numpy as np\nx = f\"{setattr(np.testing, 'assert_allclose', print)}\"\n",
           "x = f\"{globals()}\"\n",
           "x = f\"{__import__('os')}\"\n",
       }) {
    const auto why = judge(code);
    EXPECT_TRUE(why) << code;
  }
  EXPECT_NE(judge("import cupy\n\nx = f\"{exit(0)}\"\n").value_or("").find("line 3"),
            std::string::npos);
  EXPECT_NE(judge("import os\n\nx = f'a {\n os._exit(0)}'\n").value_or("").find("line 3"),
            std::string::npos)
      << "a statement over several lines is named by its first";
}

// What an honest solution writes in an f-string: format specs, conversions, `{x=}`,
// comparisons, nested quotes, escaped braces and named characters, which are literal text.
TEST(PythonEscape, HonestFStringsAreJudged) {
  for (const char* code : {
           "t = 1.0\nprint(f\"{t:.3f} ms\")\n",
           "print(f\"{{exit(0)}} is literal text\")\n",
           "print(f'{{os._exit(0)}}')\n",
           "w, p, x = 8, 3, 1.5\nprint(f\"{x:>{w}.{p}f}|{x!r}|{x=}|{x = :.2f}\")\n",
           "import cupy as cp\nprint(f\"{cp.__version__=} {cp.float32!s}\")\n",
           "import numpy as np\nprint(f\"{np.testing.assert_allclose=}\")\n",
           "a, b = 1, 2\nprint(f\"{a == b} {a != b} {a <= b} {a >= b}\")\n",
           "d = {'k': 1}\nprint(f\"{d['k']} {d[\"k\"]} it's\")\n",
           "print(f\"exit(0) {1} sys.modules\")\n",
           "print(f\"\\N{GREEK SMALL LETTER MU}s\")\n",
           "import datetime\nprint(f\"{datetime.datetime.now():%H:%M exit(0)}\")\n",
           "n = 3\nprint(f\"\"\"# not a comment {n}\n  still text exit(0)\n\"\"\")\n",
           "import cupy as cp\nsrc = rf'''extern \"C\" __global__ void k(float* x) {{ exit(0); "
           "}}'''\nK = cp.RawKernel(src, 'k')\n",
           "print(f\"{'a' if True else 'b':>4}\")\n",
       })
    EXPECT_FALSE(judge(code)) << code << "\n" << judge(code).value_or("");
}

// Python reads an identifier NFKC-normalized: a full-width or other look-alike letter spells
// the ASCII name, which no rule above would match. Code here is ASCII; strings and comments are
// not code.
TEST(PythonEscape, NonAsciiOutsideStringsAndCommentsIsRefused) {
  const std::string fullwidth_e = "\xef\xbd\x85";  // U+FF45, NFKC: e
  for (const std::string& code : {
           "import os\nos._" + fullwidth_e + "xit(0)\n", fullwidth_e + "xit(0)\n",
           std::string("import \xef\xbd\x83types\n"),  // U+FF43: c
           "import os\nx = f\"{os._" + fullwidth_e + "xit(0)}\"\n",
           std::string("\xf0\x9d\x90\x9e") + "xit(0)\n",  // U+1D41E, a mathematical bold e
           "import numpy as np\nnp.testing.assert_allclos" + fullwidth_e + " = print\n",
           std::string("x = 1\xc2\xa0+ 1\n"),  // a no-break space
       }) {
    const auto why = judge(code);
    ASSERT_TRUE(why) << code;
    EXPECT_NE(why->find("non-ASCII"), std::string::npos) << *why;
  }
  const std::string why = judge("import os\n\nos._" + fullwidth_e + "xit(0)\n").value_or("");
  EXPECT_NE(why.find("line 3"), std::string::npos) << why;
  EXPECT_NE(why.find("U+FF45"), std::string::npos) << why;
  EXPECT_NE(why.find("reads as 'e'"), std::string::npos) << why;
  EXPECT_NE(why.find("identifiers must be ASCII"), std::string::npos) << why;

  for (const char* code : {
           "# na\xc3\xafve \xe2\x80\x94 comment \xe2\x9c\x93\nx = 'gr\xc3\xb6\xc3\x9f'\n",
           "\"\"\"Docstring: \xce\xa9, \xc2\xb5s\"\"\"\nt = 1.0\nprint(f\"\xc2\xb5s: {t:.1f}\")\n",
           "x = b'\\xff'  # \xef\xbd\x85xit\n",
           // A byte order mark, which Python skips.
           "\xef\xbb\xbfimport cupy as cp\nx = cp.zeros(4)\n",
       })
    EXPECT_FALSE(judge(code)) << code << "\n" << judge(code).value_or("");
  EXPECT_TRUE(judge("\xef\xbb\xbfimport ctypes\n")) << "a byte order mark hides no import";
}

// Under a declared codec other than UTF-8, what Python decodes is not what is read here: UTF-7
// makes `+AAo-` a newline inside a comment, which ends it.
TEST(PythonEscape, AnEncodingOtherThanUtf8IsRefused) {
  for (const char* code : {
           "# -*- coding: utf-7 -*-\nx = 1  # +AAo-import os+ADs-os._exit(0)\n",
           "#!/usr/bin/env python\n# vim: set fileencoding=unicode_escape :\n",
           "# coding=raw_unicode_escape\n",
           "#coding:\tutf_7\r\nx = 1\r\n",
           "# coding:, coding= utf-7\n",
       }) {
    const auto why = judge(code);
    ASSERT_TRUE(why) << code;
    EXPECT_NE(why->find("source encoding"), std::string::npos) << *why;
  }
  // As CPython reads a declaration: the first `coding` that names one, on a comment's line.
  for (const std::string& code : {
           std::string("# -*- coding: utf-8 -*-\nimport cupy\n"),
           std::string("#!/usr/bin/env python3\n# coding: UTF_8\n"),
           std::string("# coding: latin-1\n"),
           std::string("import cupy\n# this file's coding: utf-8\n"),
           std::string("# coding: utf-8, not coding: utf-7\n"),
           std::string("x = 1  # coding: utf-7, on a line that is not a comment\n"),
           "#" + std::string(1 << 22, 'c') + "\n",
       })
    EXPECT_FALSE(judge(code)) << code.substr(0, 80) << "\n" << judge(code).value_or("");
}

// The rules are regexes, and std::regex matches by recursion, a level for each character a `\s*`
// or `\w*` takes: a RawKernel whose CUDA source runs to tens of kilobytes, blanked, once
// overflowed the judge's stack. Whitespace is read squeezed, and a statement longer than any
// solution writes (8192 characters outside its strings and comments) is refused rather than read.
TEST(PythonEscape, LongSourcesAreReadWithoutTakingTheJudgesStack) {
  std::string kernel;
  for (int i = 0; i < 20000; ++i) kernel += "    y[i] = x[i] * 2.0f;  // line\n";
  EXPECT_FALSE(judge("import cupy as cp\nK = cp.RawKernel(r'''" + kernel + "''', 'k')\n"));
  EXPECT_FALSE(judge("import numpy as np\nfor x" + std::string(300000, ' ') + "in y:\n    pass\n"));
  std::string table = "T = (";
  for (int i = 0; i < 2000; ++i) table += "1.5, ";
  const auto why = judge("import numpy as np\n" + table + ")\n");
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("line 2 holds a statement of"), std::string::npos) << *why;
  for (const std::string& code : {
           "import numpy as np\nnp" +
               [] {
                 std::string s;
                 for (int i = 0; i < 100000; ++i) s += ".a";
                 return s;
               }() +
               " = 1\n",
           "from os import " +
               [] {
                 std::string s;
                 for (int i = 0; i < 100000; ++i) s += "a, ";
                 return s;
               }() +
               "b\n",
           "x = " + std::string(300000, 'a') + "\n",
       })
    EXPECT_TRUE(judge(code)) << code.substr(0, 40);
  EXPECT_TRUE(judge("import numpy as np\nx = [0 for np.testing.assert_allclose in [print]]\n"));
  EXPECT_FALSE(judge("import numpy as np\nx = [np.sum(a) for a in np.arange(3) for b in np.x]\n"));
}

// What doctor asks the environment for: the modules, not the names a from-import takes from them.
TEST(PythonEscape, ModuleImportsAreTheModulesOnly) {
  EXPECT_EQ(python_module_imports("import sys\nimport cupy as cp, numpy.testing as npt\n"
                                  "from solution import vec_sub\nfrom . import x\n"
                                  "import a.b; from c.d import e as f\n# import g\n"),
            (std::set<std::string>{"a", "c", "cupy", "numpy", "solution", "sys"}));
}

}  // namespace
}  // namespace kjudge
