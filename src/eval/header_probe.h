#pragma once
// Which headers the selected problems include from the machine, and which of those the machine
// lacks: a problem whose build can only fail here for a missing header (ComputeEval's cudnn
// group without <cudnn_frontend.h>) is the machine's fault, and `doctor` and the pre-run check
// say so with what to install, before a model is charged with 102 build errors.
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/problem.h"

namespace kjudge {

struct HeaderUse {
  std::set<std::string> groups;  // the problems' groups ("" where a problem has none)
  int problems = 0;
};

// Every header named by an #include of a problem's C/C++/CUDA files (context, tests, baseline)
// that the problem does not ship itself, with who uses it.
std::map<std::string, HeaderUse> headers_from_machine(const std::vector<const Problem*>& problems);

// Of `headers`, those the compiler cannot find, asked of `nvcc` in one preprocessing run of a
// probe in `dir` (each header tested with __has_include, so one missing does not hide the
// next). `env` prefixes the command (VAR=value words, already quoted). Throws
// std::runtime_error when the probe itself cannot run.
std::vector<std::string> missing_headers(const std::string& nvcc,
                                         const std::vector<std::string>& headers,
                                         const std::filesystem::path& dir,
                                         const std::string& env = "");

// The install advice for a missing header, where kjudge knows its package.
std::string header_advice(const std::string& header);

}  // namespace kjudge
