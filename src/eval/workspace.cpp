#include "eval/workspace.h"

#include <fstream>
#include <set>
#include <stdexcept>

#include "run/cloexec_file.h"

namespace kjudge {

bool is_safe_relative_path(const std::string& path) {
  if (path.empty() || path.front() == '/' || path.find('\0') != std::string::npos) return false;
  if (path.find('\\') != std::string::npos) return false;
  std::filesystem::path p(path);
  if (p.is_absolute() || p.has_root_name()) return false;
  for (const auto& part : p) {
    if (part == "..") return false;
  }
  // "./a" and "a//b" are harmless but "." alone or a trailing '/' names no file.
  std::string name = p.filename().string();
  return !name.empty() && name != "." && name != "..";
}

std::optional<std::string> check_solution_paths(const Problem& problem, const Solution& solution) {
  if (solution.files.empty()) return "the solution has no files";
  std::set<std::string> tests;
  for (const auto& f : problem.test_files)
    tests.insert(std::filesystem::path(f.path).lexically_normal().string());
  std::set<std::string> seen;
  for (const auto& f : solution.files) {
    if (!is_safe_relative_path(f.path))
      return "file path '" + f.path + "' is absolute or leaves the workspace";
    std::string norm = std::filesystem::path(f.path).lexically_normal().string();
    if (tests.count(norm)) return "file path '" + f.path + "' would overwrite a hidden test file";
    if (!seen.insert(norm).second) return "file path '" + f.path + "' appears twice";
  }
  // A file used as a directory by another ("a" and "a/b") cannot both be written.
  for (const auto& p : seen) {
    for (const auto& q : seen)
      if (q.size() > p.size() && q.compare(0, p.size(), p) == 0 && q[p.size()] == '/')
        return "file path '" + p + "' is also used as a directory by '" + q + "'";
  }
  return std::nullopt;
}

namespace {

void write_file(const std::filesystem::path& dir, const SourceFile& f) {
  std::filesystem::path target = dir / f.path;
  std::filesystem::create_directories(target.parent_path());
  // Replace, never follow: an earlier file cannot have planted a link (we write them all), but
  // removing first keeps overwrite semantics plain.
  std::filesystem::remove(target);
  write_file_cloexec(target, f.content);
}

}  // namespace

void materialize_workspace(const std::filesystem::path& dir, const Problem& problem,
                           const Solution& solution) {
  std::filesystem::create_directories(dir.parent_path());
  if (!std::filesystem::create_directory(dir))
    throw std::runtime_error("workspace already exists: " + dir.string());
  for (const auto& f : problem.context_files) {
    if (!is_safe_relative_path(f.path))
      throw std::runtime_error("problem context file path escapes the workspace: " + f.path);
    write_file(dir, f);
  }
  for (const auto& f : problem.test_files) {
    if (!is_safe_relative_path(f.path))
      throw std::runtime_error("problem test file path escapes the workspace: " + f.path);
    write_file(dir, f);
  }
  for (const auto& f : solution.files) write_file(dir, f);
}

}  // namespace kjudge
