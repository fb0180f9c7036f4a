#pragma once
// A fresh directory per solution: context files, then test files, then the solution's files.
// What the solution may bring is decided before (eval/solution_rules.h): here it only lands.
#include <filesystem>
#include <optional>
#include <string>

#include "core/problem.h"

namespace kjudge {

// Not empty, not absolute, no "..", no NUL or backslash, naming a file (not "." or "a/").
bool is_safe_relative_path(const std::string& path);

// Creates `dir` (which must not exist) and writes the files. Throws std::runtime_error on IO
// failure (a judge fault); call check_solution_files (eval/solution_rules.h) first.
void materialize_workspace(const std::filesystem::path& dir, const Problem& problem,
                           const Solution& solution);

}  // namespace kjudge
