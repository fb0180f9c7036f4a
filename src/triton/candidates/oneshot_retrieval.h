#pragma once
// The paper's one-shot setting: before the instruction, the model is shown the most similar
// solved example from a corpus, retrieved by BM25. Here the corpus is whatever the user provides
// (TritonBench's own train_crawl/train_synth were not published with their contents), indexed in
// an SQLite FTS5 table, whose bm25() ranks the matches.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "triton/data/operator.h"

struct sqlite3;

namespace kjudge::triton {

struct OneShotExample {
  std::string instruction;
  std::string code;
  // The TritonBench operator this example is, when known ("G/add_example.py"); "" otherwise.
  std::string key;
  std::string source;  // where it came from: "corpus.jsonl:12", "TritonBench G/x.py (simple)"
};

// The examples of a corpus:
//  - a TritonBench data folder: each G operator twice, with its simple and its complex
//    instruction, and its reference code (T operators have no Triton code to show);
//  - a JSON lines file, or a file holding one JSON array (the *_alpac_v1.json shape), of objects
//    with `instruction` and the code in `output` or `code`; optional `channel` + `file` give the
//    key. Entries whose code is empty (T's Alpaca files) are skipped: they show nothing.
// Malformed input is an InputError naming file, line (or entry) and field.
std::vector<OneShotExample> load_oneshot_corpus(const std::filesystem::path& path);

// An FTS5 query that matches any word of `text`, each word a quoted string (inner quotes
// doubled), so no character of the instruction can be read as query syntax (AND, NOT, NEAR, *,
// :, ^, parentheses). Words are runs of ASCII letters and digits or of non-ASCII bytes, each
// kept once, at most 1000 of them. "" when the text has no word.
std::string fts5_any_word_query(const std::string& text);

// Whether `example` is `op` itself, which one-shot retrieval must never show: the same key, the
// same instruction text (either kind), the same code as the reference, or an instruction that
// contains the operator's own description (G: simp_instru / comp_instru; T: func_inputs), as
// the Alpaca files of the other instruction kind do.
bool is_same_operator(const OneShotExample& example, const TritonOperator& op);

class OneShotIndex {
 public:
  // Indexes the examples' instructions in an FTS5 table in `db_path` (":memory:" by default; a
  // file is created, or its table replaced). Throws std::runtime_error when SQLite cannot (FTS5
  // missing, file not writable), naming the path.
  explicit OneShotIndex(std::vector<OneShotExample> examples,
                        const std::string& db_path = ":memory:");
  ~OneShotIndex();
  OneShotIndex(const OneShotIndex&) = delete;
  OneShotIndex& operator=(const OneShotIndex&) = delete;

  // The example whose instruction ranks best by BM25 against `instruction`, skipping those
  // `excluded` says yes to; nullopt when nothing else shares a word with it.
  std::optional<OneShotExample> best(
      const std::string& instruction,
      const std::function<bool(const OneShotExample&)>& excluded = nullptr) const;

  // The example for `op`'s instruction of the given text, never `op` itself.
  std::optional<OneShotExample> best_for(const TritonOperator& op,
                                         const std::string& instruction) const;

  std::size_t size() const { return examples_.size(); }

 private:
  std::vector<OneShotExample> examples_;
  sqlite3* db_ = nullptr;
};

}  // namespace kjudge::triton
