#pragma once
// The journal of graded ComputeEval solutions (RUN/results.jsonl of evaluate, validate and run):
// one JSON line per graded solution, written and flushed as each one completes
// (eval/json_lines_journal.h), so a run killed at any moment loses at most the solutions in
// flight. Reopening drops a torn last line and reports what is already done.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "eval/graded.h"
#include "eval/json_lines_journal.h"

namespace kjudge {

class Journal {
 public:
  // Opens (creating if needed) `path` for appending; `existing` receives the records already
  // there, in file order. A line that does not parse is kept out of `existing`, cut from the
  // file if it is the torn last line, and an error otherwise (the journal is not ours).
  Journal(const std::filesystem::path& path, std::vector<GradedSolution>* existing);

  // Thread-safe; the line reaches the kernel before this returns.
  void append(const GradedSolution& g);

  const std::filesystem::path& path() const { return lines_.path(); }

 private:
  JsonLinesJournal lines_;
};

using SolutionKey = std::pair<std::string, int>;  // task_id, sample

}  // namespace kjudge
