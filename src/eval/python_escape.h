#pragma once
// A cuda_python solution runs inside the hidden test's own interpreter: the test imports it
// (`from solution import vec_sub`) and its checks run beside it. What the verdict rests on (the
// test's exit status, the comparisons it makes) is then within the solution's reach through a
// handful of interpreter features that no kernel or its launcher needs: ending the process
// (`os._exit(0)` or `raise SystemExit(0)` at import passes a test that never ran), reaching
// frames, modules, builtins or the garbage collector, running code it builds at run time, and
// rebinding what another module defines (`np.testing.assert_allclose = ...`). ComputeEval runs
// such solutions as they are; kjudge refuses a solution file that uses any of them, naming the
// file, the line and the feature. The rule reads code only: comments and string contents (the
// CUDA source a RawKernel compiles) are not searched, but an f-string's replacement fields,
// which Python runs, are code. Code must be ASCII (Python folds a look-alike letter into the
// name it resembles, `os._ｅxit`), and a file may declare no source encoding but UTF-8 (or
// ASCII or Latin-1): under another codec Python would not run what is read here. A statement
// longer than 8192 characters outside its strings and comments is refused, not read.
#include <optional>
#include <string>

#include "core/problem.h"

namespace kjudge {

// Why one of `solution`'s Python files would reach past its kernels into the test's
// interpreter ("solution.py line 4 uses os._exit: ..."), or nullopt. Only cuda_python problems.
std::optional<std::string> python_escape(const Problem& problem, const Solution& solution);

}  // namespace kjudge
