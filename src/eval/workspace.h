#pragma once
// A fresh directory per solution: context files, then test files, then the solution's files
// (which may overwrite context files, as in ComputeEval, but never test files).
#include <filesystem>
#include <optional>
#include <string>

#include "core/problem.h"

namespace kjudge {

// Why a solution cannot be placed in a workspace, or nullopt when it can: no files, an empty,
// absolute or escaping path ("..", or a path through an earlier file), a collision with a test
// file, a duplicate path.
std::optional<std::string> check_solution_paths(const Problem& problem, const Solution& solution);

// Same rule for one path; used for problem files too.
bool is_safe_relative_path(const std::string& path);

// Creates `dir` (which must not exist) and writes the files. Throws std::runtime_error on IO
// failure (a judge fault); call check_solution_paths first.
void materialize_workspace(const std::filesystem::path& dir, const Problem& problem,
                           const Solution& solution);

}  // namespace kjudge
