#pragma once
// The journals of a `kjudge triton eval` run directory (docs/triton.md, "The run directory and
// --resume"): RUN/results.jsonl, one line per candidate as soon as it is judged (in completion
// order), and RUN/references.jsonl, one line per operator as soon as its reference check is
// settled. Both are JSON-lines journals (eval/json_lines_journal.h): a run killed at any moment
// loses only the runs in flight. Reopened by --resume, they say which candidates are done, and
// give back what the summary needs of them.
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "eval/json_lines_journal.h"
#include "triton/judge/eval.h"

namespace kjudge::triton {

// A candidate's key in results.jsonl: "G/add_example#3" (channel, operator, sample), unique
// among a run's jobs whatever their source.
std::string triton_candidate_key(const TritonJob& job);

// A results.jsonl line read back as far as score_triton and triton_summary_json need it: the
// job (given: the one the line's key names), verdict, call_ok, detail, the speedup's estimate
// and interval, the run's status and exception, the GPU efficiency and its work. Not enough for
// triton_result_json: the line itself is what a journal keeps. Throws std::runtime_error naming
// the field that is missing or malformed.
TritonJobResult triton_result_from_json(const nlohmann::ordered_json& line, const TritonJob& job);

// A references.jsonl line read back: the reference's run (status, detail, exception, env) and
// its self check as triton_summary_json reports it (status, detail, second run, basis, and the
// entries that differed). Throws std::runtime_error naming the field.
std::pair<TritonRunOutcome, TritonReferenceCheck> triton_reference_from_json(
    const nlohmann::ordered_json& line);

class TritonJournal {
 public:
  // Opens run_dir/results.jsonl and run_dir/references.jsonl for appending (creating them),
  // dropping a torn last line of either. The lines already there are an earlier run's of these
  // `jobs` (every job the run selects, done or not): a result line whose candidate is none of
  // them, or given twice, or a reference line of an operator none of them has, is an InputError
  // naming the file and line.
  TritonJournal(const std::filesystem::path& run_dir, const std::vector<TritonJob>& jobs);

  // The jobs without a result line, in their order.
  std::vector<TritonJob> todo(const std::vector<TritonJob>& jobs) const;
  // How many candidates an earlier run judged.
  std::size_t earlier() const { return earlier_.size(); }

  // Thread-safe; each line reaches the kernel before these return.
  void append(const TritonJobResult& r);
  void append_reference(const TritonOperator& op, const TritonRunOutcome& reference,
                        const TritonReferenceCheck& check, const TritonDefect* defect);

  // Adds what earlier runs judged to `res` (what this run judged): their results, before this
  // run's, the references and checks of the operators this run did not run again, and the
  // defect rows of their operators (from `defects`, the table this run applies); then scores
  // all the results together.
  void add_earlier(TritonEvalResult& res, const std::vector<TritonDefect>& defects) const;

  // Rewrites references.jsonl whole (a new file renamed over it): one line per operator of
  // `jobs` that has one, in the jobs' order: the latest appended, by this run or an earlier one.
  // No reference line may be appended after it.
  void finish_references(const std::vector<TritonJob>& jobs);

 private:
  std::filesystem::path run_dir_;
  // Read back while the journals open (in file order, with their line numbers), checked after.
  std::vector<std::pair<int, nlohmann::ordered_json>> result_lines_, reference_lines_;
  std::vector<TritonJobResult> earlier_;                      // in file order
  std::set<std::string> done_;                                // their candidates' keys
  mutable std::mutex mu_;                                     // references_ and its journal
  std::map<std::string, nlohmann::ordered_json> references_;  // "G/x" -> its latest line
  std::unique_ptr<JsonLinesJournal> results_journal_, references_journal_;
};

}  // namespace kjudge::triton
