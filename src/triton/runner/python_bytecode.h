#pragma once
// Compiled bytecode for the interpreter's own packages, kept outside every sandbox. Inside the
// sandbox the venv is read-only, and a package installed without its __pycache__ (the GPU
// machine's torch) is compiled from source again by every run: about 2 of the 4 s a Triton
// run spends importing torch. The judge compiles them once, outside the sandbox, into a folder of
// its own (`python -X pycache_prefix`), which every run then reads read-only: nothing a
// candidate does can change what the next run imports.
#include <filesystem>
#include <string>
#include <vector>

#include "triton/runner/python.h"

namespace kjudge::triton {

// The packages a Triton run imports before any operator code.
inline const std::vector<std::string> kRunnerPackages = {"numpy", "torch", "triton"};

struct PythonBytecode {
  std::filesystem::path dir;
  std::vector<std::string> compiled;  // modules imported (and so compiled) into `dir`
  std::vector<std::string> missing;   // not installed
  std::vector<std::string> failed;    // installed, but their import raised: "name: Error"
};

// The folder under `root` for this interpreter (its path and version), filled by importing each
// of `modules` with the interpreter's own packages, outside the sandbox, with no operator code.
// A package that is not installed is skipped. Python checks each cached file against its source
// (size and time), so an updated package is compiled again, not read stale. Throws
// std::runtime_error saying why when the interpreter cannot be run or the folder made.
PythonBytecode prepare_python_bytecode(const PythonEnv& python, const std::filesystem::path& root,
                                       const std::vector<std::string>& modules,
                                       double timeout_s = 600);

// $XDG_CACHE_HOME/kjudge/python-bytecode, else $HOME/.cache/kjudge/python-bytecode; empty when
// neither variable is set.
std::filesystem::path default_python_bytecode_root();

// The interpreter's options that read the cache: "-X", "pycache_prefix=DIR" (with -B, which
// every run has, nothing is written there); none when `cache` is empty.
std::vector<std::string> python_bytecode_args(const std::filesystem::path& cache);

}  // namespace kjudge::triton
