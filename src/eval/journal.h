#pragma once
// Results are journalled one JSON line per graded solution, written and flushed as each one
// completes, so a run killed at any moment loses at most the solutions in flight. Reopening
// drops a torn last line (a write cut by kill -9) and reports what is already done.
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "eval/graded.h"

namespace kjudge {

class Journal {
 public:
  // Opens (creating if needed) `path` for appending; `existing` receives the records already
  // there, in file order. A line that does not parse is kept out of `existing`, cut from the
  // file if it is the torn last line, and an error otherwise (the journal is not ours).
  Journal(const std::filesystem::path& path, std::vector<GradedSolution>* existing);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  // Thread-safe; the line reaches the kernel before this returns.
  void append(const GradedSolution& g);

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  std::mutex mu_;
};

using SolutionKey = std::pair<std::string, int>;  // task_id, sample

}  // namespace kjudge
