#pragma once
// Where the judge finds a library it preloads into the programs it runs (the CUPTI profiler, the
// main guard): named by an environment variable, or installed beside the kjudge binary.
#include <filesystem>
#include <string>

namespace kjudge {

// $`env_var` when set (as given: the caller decides what a path that is no file means), else
// `file` in lib/ beside the running binary, else beside it, else in ../lib/kjudge/ (an
// installed kjudge); empty when none is found.
std::filesystem::path locate_beside_binary(const char* env_var, const std::string& file);

}  // namespace kjudge
