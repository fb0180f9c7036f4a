#pragma once
// Where the judge finds a library it preloads into the programs it runs (the CUPTI profiler, the
// main guard): named by an environment variable, or installed beside the kjudge binary.
#include <filesystem>
#include <string>
#include <vector>

namespace kjudge {

// $`env_var` when set (as given: the caller decides what a path that is no file means), else
// `file` in lib/ beside the running binary, else beside it, else in ../lib/kjudge/ (an
// installed kjudge); empty when none is found.
std::filesystem::path locate_beside_binary(const char* env_var, const std::string& file);

// A Python runner's entry script (python/FILE, e.g. kjudge_triton_runner.py): `preferred` when
// given (it must be readable), else $`env_var`, else python/FILE beside the binary (a bundle),
// one folder up (a build tree in the source tree) or in ../share/kjudge/python (an installed
// kjudge). Throws std::runtime_error naming every place it looked, `what` ("the Triton
// runner") and how to name one.
std::filesystem::path locate_python_entry(const std::string& file, const char* env_var,
                                          const std::string& what,
                                          const std::string& preferred = "");

}  // namespace kjudge
