#include "eval/workspace.h"

#include <fstream>
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
