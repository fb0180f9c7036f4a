#pragma once
// RUN/results.jsonl of a `kjudge kernelbench eval` run: one line per solution as soon as it is
// judged (in completion order), a JSON-lines journal (eval/json_lines_journal.h), so a run
// killed at any moment loses only the solutions in flight. Reopened by --resume, it says which
// solutions are done and gives back what the summary needs of them.
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "eval/json_lines_journal.h"
#include "kernelbench/judge/grade.h"
#include "kernelbench/solutions/solutions.h"

namespace kjudge::kernelbench {

class Journal {
 public:
  // Opens run_dir/results.jsonl (creating it), dropping a torn last line. The lines already
  // there are an earlier run's of these `solutions` (every solution the run selects): a line
  // whose key is none of them, or given twice, is an InputError naming the file and line.
  Journal(const std::filesystem::path& run_dir, const std::vector<Solution>& solutions);
  // The same for a run whose solutions arrive while it runs (kjudge run --kernelbench): `keys`
  // are those it may be given ("L1/19#0").
  Journal(const std::filesystem::path& run_dir, const std::set<std::string>& keys);

  std::vector<const Solution*> todo(const std::vector<Solution>& solutions) const;
  bool done(const std::string& key) const { return done_.count(key) > 0; }
  const std::vector<Graded>& earlier() const { return earlier_; }
  const std::filesystem::path& path() const { return path_; }

  void append(const Result& r);  // thread-safe; on disk before it returns

 private:
  std::filesystem::path path_;
  std::vector<Graded> earlier_;
  std::set<std::string> done_;
  std::unique_ptr<JsonLinesJournal> journal_;
};

}  // namespace kjudge::kernelbench
