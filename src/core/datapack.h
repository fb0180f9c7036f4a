#pragma once
// ComputeEval datapacks: a .tar.gz holding metadata.json plus problems.jsonl (problem pack) or
// solutions.jsonl (solution pack), one JSON object per line. Packs we write can be read by
// ComputeEval and vice versa.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/input_error.h"
#include "core/problem.h"

namespace kjudge {

// Where a loader that can skip bad records puts them. A loader given a null LoadReport* throws
// the first error instead. Each error names its file (for a pack line "PACK:problems.jsonl"),
// line and field.
struct LoadReport {
  std::vector<InputError> errors;
  bool ok() const { return errors.empty(); }
};

// The error kept in the report where one was given, thrown where none was.
void report_error(LoadReport* report, InputError error);

struct ProblemPackMetadata {
  std::string release;
  int total_count = 0;
  std::string created_at;
  std::optional<std::string> description;
  std::map<std::string, std::string> task_id_hashes;  // task_id -> md5 hex of its line
};

struct PackLine {
  int line = 0;     // 1-based line number in problems.jsonl
  std::string md5;  // md5 hex of the line's bytes, trailing "\n" included
};

struct ProblemPack {
  std::string path;
  ProblemPackMetadata metadata;
  std::vector<Problem> problems;  // in file order; lines that failed to load are left out
  std::vector<PackLine> lines;    // parallel to problems
  int record_count = 0;           // non-blank lines of problems.jsonl, loaded or not
};

struct IntegrityIssue {
  enum class Kind {
    kHashMismatch,     // the line's md5 differs from task_id_hashes
    kMissingHash,      // a problem with no entry in task_id_hashes
    kUnknownHash,      // task_id_hashes names a task that is not in problems.jsonl
    kCountMismatch,    // total_count differs from the number of lines
    kDuplicateTaskId,  // two lines share a task_id
  };
  Kind kind;
  std::string task_id;  // empty for kCountMismatch
  std::string message;
};

// Throws InputError naming the pack for a missing, non-gzip or malformed archive, a missing or
// malformed metadata.json, or a missing problems.jsonl. Bad lines go to `report` (see
// LoadReport). Blank lines are skipped, as ComputeEval does.
ProblemPack read_problem_pack(const std::filesystem::path& path, LoadReport* report);

// Checks the pack against its own metadata. Empty when the pack is intact.
std::vector<IntegrityIssue> verify_pack(const ProblemPack& pack);

// Writes a pack ComputeEval reads: each line is compact JSON plus "\n", hashes cover exactly the
// written lines, metadata.json is indented by 2. Replaces `path` atomically. Throws InputError
// for a duplicate task_id or a file path that is not a safe relative path.
void write_problem_pack(const std::filesystem::path& path, const std::string& release,
                        const std::optional<std::string>& description,
                        const std::vector<Problem>& problems);

struct SolutionPackMetadata {
  std::string release;
  int total_count = 0;
  std::string created_at;
  std::optional<std::string> description;
  std::optional<std::vector<std::string>> groups;
};

struct SolutionPack {
  std::string path;
  SolutionPackMetadata metadata;
  std::vector<Solution> solutions;  // in file order
  std::vector<int> lines;           // parallel to solutions: 1-based line in solutions.jsonl
};

// Solution::sample comes from the line's "sample" key, else it is the ordinal of the line among
// that task's lines. Two lines with the same (task_id, sample) are an error for the later one.
SolutionPack read_solution_pack(const std::filesystem::path& path, LoadReport* report);

// ComputeEval names solution packs "<name>-solutions.tar.gz"; the name is not enforced here.
void write_solution_pack(const std::filesystem::path& path, const std::string& release,
                         const std::optional<std::string>& description,
                         const std::optional<std::vector<std::string>>& groups,
                         const std::vector<Solution>& solutions);

// Bare JSONL files (problems.jsonl / solutions.jsonl outside a pack).
std::vector<Problem> read_problems_jsonl(const std::filesystem::path& path, LoadReport* report);
std::vector<Solution> read_solutions_jsonl(const std::filesystem::path& path, LoadReport* report);

// What the CLI takes as a problem source: a .tar.gz pack (recognised by its gzip header), a
// bare problems.jsonl, or a directory (one problem directory or a tree of them, see
// problem_dir.h). A task_id seen twice is an error for the later problem, which is dropped.
// Pack hashes are not checked here: see read_problem_pack + verify_pack.
std::vector<Problem> read_problems_any(const std::filesystem::path& path, LoadReport* report);

// Same for solutions: a solutions pack, a bare solutions.jsonl, or a tree of solution
// directories.
std::vector<Solution> read_solutions_any(const std::filesystem::path& path, LoadReport* report);

}  // namespace kjudge
