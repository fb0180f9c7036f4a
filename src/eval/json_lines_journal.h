#pragma once
// A journal of JSON lines: one line appended and handed to the kernel as each record is final,
// so a run killed at any moment loses at most the records in flight. Reopening hands back the
// lines already there, drops a torn last line (a write cut by kill -9) and appends after the
// rest. What a line holds is its owner's: eval/journal.h (graded ComputeEval solutions),
// triton/judge/journal.h (Triton results and references).
#include <filesystem>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

namespace kjudge {

class JsonLinesJournal {
 public:
  // Called with each complete line already in the file, in file order (blank lines skipped),
  // and its 1-based line number; it throws (any std::exception) when the line is not one of
  // this journal's.
  using LineReader = std::function<void(const std::string& line, int lineno)>;

  // Opens (creating if needed) `path` for appending. Every line already there is handed to
  // `read` (may be empty: then each must parse as JSON). A last line without its newline is
  // dropped unread (a torn write, or one that cannot be known to be whole); a last line that
  // `read` refuses is dropped as torn too; a refused line before others is an error naming
  // the file and line (the journal is not ours). Dropped lines are cut from the file.
  JsonLinesJournal(const std::filesystem::path& path, const LineReader& read);
  ~JsonLinesJournal();
  JsonLinesJournal(const JsonLinesJournal&) = delete;
  JsonLinesJournal& operator=(const JsonLinesJournal&) = delete;

  // Thread-safe; the line (compact, invalid UTF-8 replaced) reaches the kernel before this
  // returns. Throws std::runtime_error naming the file when the write fails.
  void append(const nlohmann::json& j);
  void append(const nlohmann::ordered_json& j);

  const std::filesystem::path& path() const { return path_; }

 private:
  void append_line(const std::string& line);

  std::filesystem::path path_;
  int fd_ = -1;
  std::mutex mu_;
};

}  // namespace kjudge
