#pragma once
// `kjudge doctor`'s check of the Python environment that cuda_python problems run in
// (run/python_env.h): present, and able to import every module the selected problems' tests
// and baselines import (CuPy, cuda-python, numpy, nvtx, pytest, ...). A missing module would
// fail a test with ModuleNotFoundError and charge the model for the machine, so it fails the
// check, naming the module, its problems' groups and what to run. Problems this machine skips
// anyway (their toolkit or GPU is not here) are not counted.
#include <string>
#include <vector>

#include "core/problem.h"
#include "eval/env_check.h"
#include "run/machine.h"

namespace kjudge {

// nullopt-like: a check named "python" with an empty detail when no selected problem is
// cuda_python (the caller leaves it out).
EnvCheck python_check(const MachineInfo& machine, const std::vector<const Problem*>& problems);

// The top-level modules of `names` that `python` cannot find (importlib.util.find_spec, which
// imports nothing); throws std::runtime_error when the interpreter does not answer.
std::vector<std::string> missing_python_modules(const std::string& python,
                                                const std::vector<std::string>& names);

}  // namespace kjudge
