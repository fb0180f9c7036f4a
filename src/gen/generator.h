#pragma once
// `kjudge generate` (issue 5): asks a model for solutions to every selected problem, several
// samples each, in parallel, and journals each answer (raw text, the files parsed from it,
// tokens, attempts) as it arrives, so an interrupted run resumes asking only for what is
// missing. The chat client (chat.h) does the HTTP, retries and backoff; the prompt layer
// (prompt.h) the words; the answer parser (answer_parser.h) the files.
#include <atomic>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/problem.h"
#include "eval/graded.h"
#include "gen/chat.h"

namespace kjudge {

// One answer of a multi-turn sample (--turns): what the model said and what the judge found.
struct GenTurn {
  std::string raw_answer;
  std::vector<SourceFile> files;
  std::string parse_error;
  std::string verdict;   // the judge's verdict on this answer
  std::string feedback;  // what the model was told next ("" after a pass or the last turn)
  ChatUsage usage;
};

// One journal line of generation.jsonl: one sample of one problem.
struct GenRecord {
  std::string task_id;
  int sample = 0;
  std::string model;       // as the API reported it
  std::string raw_answer;  // the model's whole answer, as received
  std::vector<SourceFile> files;
  std::vector<std::string> warnings;  // what the parser tolerated
  std::string parse_error;            // non-empty: no usable file (the sample then fails)
  std::string finish_reason;          // "stop", "length" (truncated), ...
  ChatUsage usage;
  int attempts = 0;
  double seconds = 0;
  // --turns: every turn, in order; the fields above are the last turn's (usage: the sum).
  std::vector<GenTurn> turns;
};
nlohmann::json to_json(const GenRecord& r);
GenRecord gen_record_from_json(const nlohmann::json& j);

// The solution a record stands for. An answer with no usable code still becomes a sample (a
// file that says why and does not build), so pass@k keeps its denominator honest.
Solution solution_of(const GenRecord& r, const Problem& problem);

struct GenOptions {
  ChatRequest request;  // model and sampling settings; messages are filled per problem
  int samples = 1;
  int workers = 8;
  std::optional<std::filesystem::path> system_prompt_file;
  std::optional<std::filesystem::path> user_prompt_template;
  // --turns: up to this many answers per sample; after each, `judge` builds and tests it and a
  // failure is sent back (gen/feedback.h) for another try. Every turn is judged.
  int turns = 1;
  std::function<GradedSolution(const Problem&, const Solution&)> judge;
};

// An API call that failed for good (after the client's retries): not journaled, so --resume
// asks again.
struct GenFailure {
  std::string task_id;
  int sample = 0;
  std::string kind;  // ChatError::kind()
  std::string message;
};

class Generator {
 public:
  Generator(GenOptions options, ChatClient& client);

  // Asks for every (problem, sample) not in `done`; `on_record` and `on_failure` are called
  // from one thread at a time as answers arrive. Prompts are built (and templates checked)
  // before the first request, so a bad template costs no API call: it throws.
  void run(const std::vector<const Problem*>& problems,
           const std::set<std::pair<std::string, int>>& done,
           const std::function<void(const GenRecord&)>& on_record,
           const std::function<void(const GenFailure&)>& on_failure);

  void request_stop() { stop_.store(true); }

 private:
  GenOptions opt_;
  ChatClient& client_;
  std::atomic<bool> stop_{false};
};

}  // namespace kjudge
