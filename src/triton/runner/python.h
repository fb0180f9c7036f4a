#pragma once
// The Python side of Triton judging, as the judge finds it: the interpreter (a venv's python on
// the GPU machine) with the folders it must see inside the sandbox, and the runner script.
#include <filesystem>
#include <string>
#include <vector>

namespace kjudge::triton {

struct PythonEnv {
  std::string executable;  // absolute, as the sandbox runs it (a venv's bin/python, unresolved)
  std::string version;     // "3.12.3"
  // Host folders outside /usr the interpreter reads (the venv, its base installation,
  // site-packages elsewhere on sys.path): bound read-only into the sandbox. /usr is always there.
  std::vector<std::filesystem::path> ro_paths;
  // Bytecode of its packages compiled by the judge (triton/runner/python_bytecode.h), bound
  // read-only and read by every run; empty: none (each run compiles what it imports).
  std::filesystem::path bytecode_cache;
};

// Asks `python` (a name looked up in PATH, or a path) where it lives, running it outside the
// sandbox with no operator code: `python -I -c <probe>`. Throws std::runtime_error saying why
// when it cannot be run or answers nonsense.
PythonEnv probe_python(const std::string& python, double timeout_s = 60);

// The folders to bind for an interpreter that reported these paths (its prefixes, sys.path and
// executable): those that exist, outside /usr, never "/", without one nested in another. Exposed
// for tests.
std::vector<std::filesystem::path> python_bind_paths(const std::vector<std::string>& reported);

// The runner script: `preferred` when given, else $KJUDGE_TRITON_RUNNER, else
// python/kjudge_triton_runner.py beside the kjudge binary or one folder up (a build folder in
// the source tree). Throws std::runtime_error listing where it looked.
std::filesystem::path locate_triton_runner(const std::string& preferred = "");

}  // namespace kjudge::triton
