#pragma once
// Top-level Python module names a solution's own files must never take: a test run with
// `PYTHONPATH=.` (ComputeEval's cuda_python problems) imports a `json.py` or `numpy/` from the
// workspace before the real one, and `sitecustomize` runs before the test does.
#include <set>
#include <string>

namespace kjudge {

const std::set<std::string>& python_stdlib_modules();
const std::set<std::string>& python_stack_modules();

}  // namespace kjudge
