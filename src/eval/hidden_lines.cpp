#include "eval/hidden_lines.h"

#include <algorithm>
#include <set>
#include <sstream>

namespace kjudge {

namespace fs = std::filesystem;

namespace {

// Trimmed, with every run of spaces and tabs one space: a program that re-indents a line still
// prints the line.
std::string fold(const std::string& line) {
  std::string out;
  bool gap = false;
  for (char c : line) {
    if (c == ' ' || c == '\t' || c == '\r') {
      gap = !out.empty();
      continue;
    }
    if (gap) out += ' ';
    gap = false;
    out += c;
  }
  return out;
}

bool compiled_source(const fs::path& path) {
  static const std::set<std::string> kinds = {".c",   ".cc",  ".cpp", ".cxx", ".c++", ".cu",
                                              ".cuh", ".h",   ".hh",  ".hpp", ".hxx", ".h++",
                                              ".inl", ".inc", ".ipp", ".tcc"};
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return kinds.count(ext) > 0;
}

}  // namespace

HiddenLines::HiddenLines(const Problem& problem) {
  std::set<std::string> unique;
  for (const auto& f : problem.test_files) {
    std::istringstream in(f.content);
    for (std::string line; std::getline(in, line);)
      if (std::string t = fold(line); t.size() >= kMinLine) unique.insert(std::move(t));
  }
  lines_.assign(unique.begin(), unique.end());
  std::stable_sort(lines_.begin(), lines_.end(),
                   [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
}

std::string HiddenLines::redact(const std::string& log) const {
  if (lines_.empty()) return log;
  std::string out;
  out.reserve(log.size());
  std::size_t pos = 0;
  while (pos < log.size()) {
    std::size_t end = log.find('\n', pos);
    const bool newline = end != std::string::npos;
    if (!newline) end = log.size();
    const std::string line = log.substr(pos, end - pos);
    const std::string folded = fold(line);
    bool leaks = false;
    for (const auto& s : lines_) {
      if (s.size() > folded.size()) continue;
      if (folded.find(s) != std::string::npos) {
        leaks = true;
        break;
      }
    }
    out += leaks ? std::string(kHiddenLineMarker) : line;
    if (newline) out += '\n';
    pos = end + 1;
  }
  return out;
}

std::string redact_test_source(const std::string& log, const Problem& problem) {
  return HiddenLines(problem).redact(log);
}

int remove_hidden_sources(const fs::path& workspace, const Problem& problem) {
  int removed = 0;
  for (const auto& f : problem.test_files) {
    if (!compiled_source(f.path)) continue;
    std::error_code ec;
    // The path is the problem's (checked when the workspace was written) and the solution's
    // files never collide with it (solution_rules.h): what is there is the problem's file.
    if (fs::remove(workspace / f.path, ec)) ++removed;
  }
  return removed;
}

}  // namespace kjudge
