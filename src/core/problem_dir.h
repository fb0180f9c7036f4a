#pragma once
// Problems and solutions as directories, the form people edit by hand and keep in git.
//
// A problem directory:
//   problem-spec.yaml  every problem field except the files, with the JSON names and nesting
//                      (metadata.tags, timing_mode.type, ...) and the same defaults
//   context/P          context file P
//   test/...           test files; their paths keep the prefix (test/main.cu is test/main.cu)
//   solution/P         baseline solution file P; no files there means no baseline
//
// A solution directory holds solution-spec.yaml ({task_id, sample: optional int}) and the
// solution's files beside it, at their paths relative to the directory.
//
// Files are read and written byte for byte and must be UTF-8 text (a pack line is JSON).
#include <filesystem>
#include <vector>

#include "core/datapack.h"
#include "core/problem.h"

namespace kjudge {

inline constexpr const char* kProblemSpecFile = "problem-spec.yaml";
inline constexpr const char* kSolutionSpecFile = "solution-spec.yaml";

// Throws InputError naming the file, and for YAML the line, of the first problem.
Problem load_problem_dir(const std::filesystem::path& dir);

// `root` itself when it holds problem-spec.yaml, else every directory below it that does (not
// looking inside those), sorted by path. A problem that fails to load goes to `report` (thrown
// when null), as does a task_id already loaded from an earlier directory. Throws InputError when
// root is not a directory or holds no problem at all.
std::vector<Problem> load_problem_dirs(const std::filesystem::path& root, LoadReport* report);

// Creates `dir` (which must be absent or empty) and writes the problem there. Throws InputError
// before writing anything when a test file path does not start with "test/", a path is not a
// safe relative path, or two files share a path.
void write_problem_dir(const Problem& problem, const std::filesystem::path& dir);

// Solution::sample is the spec's "sample", or 0 when it has none.
Solution load_solution_dir(const std::filesystem::path& dir);

// Like load_problem_dirs, for solution-spec.yaml. A solution without "sample" gets its ordinal
// among that task's directories in path order; a repeated (task_id, sample) is an error.
std::vector<Solution> load_solution_dirs(const std::filesystem::path& root, LoadReport* report);

// Creates `dir` (absent or empty) with solution-spec.yaml (task_id and sample) and the files.
void write_solution_dir(const Solution& solution, const std::filesystem::path& dir);

}  // namespace kjudge
