#pragma once
// The hidden tests never reach their submitter through a log (issue 32). Compilers quote the
// offending source line and a failing assert prints its expression, and a solution's program can
// print whatever it can read: every line of a build or test log, a benchmark's failure and the
// feedback of `generate --turns` that reproduces a line of a test file is replaced by a marker
// before the text leaves the judge. The other half of the rule is in the evaluator: a problem's
// compiled test sources are gone from the workspace before its program runs
// (remove_hidden_sources), so the program has nothing to read, however it would encode it.
#include <filesystem>
#include <string>
#include <vector>

#include "core/problem.h"

namespace kjudge {

inline constexpr const char* kHiddenLineMarker = "[a line of the hidden tests was removed]";

class HiddenLines {
 public:
  explicit HiddenLines(const Problem& problem);
  // `log` with every line that contains a test file's line (of kMinLine characters or more,
  // spaces and tabs folded to one space on both sides) replaced by kHiddenLineMarker.
  std::string redact(const std::string& log) const;
  bool empty() const { return lines_.empty(); }

  // Shorter lines ("}", "return 0;", "int main() {") reveal nothing and are in every program.
  static constexpr std::size_t kMinLine = 12;

 private:
  std::vector<std::string> lines_;  // folded, longest first, unique
};

// redact() of one log with a problem's test files.
std::string redact_test_source(const std::string& log, const Problem& problem);

// Removes the problem's test files that a build compiles (C, C++ and CUDA sources and headers)
// from a built workspace: the test program needs none of them to run, and the solution's code
// inside it could otherwise print them. Test files of other kinds (Python tests, data) stay:
// the command that runs the test reads them. Returns how many were removed.
int remove_hidden_sources(const std::filesystem::path& workspace, const Problem& problem);

}  // namespace kjudge
