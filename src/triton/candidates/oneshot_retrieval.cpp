// The one-shot example for a Triton prompt: BM25 over a user corpus in SQLite FTS5.
// Declared, and explained, in triton/candidates/oneshot_retrieval.h.
#include "triton/candidates/oneshot_retrieval.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <unordered_set>

#include "core/input_error.h"
#include "core/json_records.h"
#include "core/read_file.h"
#include "triton/data/tritonbench.h"

namespace kjudge::triton {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr size_t kMaxQueryWords = 1000;

// Code compared for identity: trailing spaces on lines and trailing blank lines do not make a
// different solution (the statistics' `output` and the operator file differ only so).
std::string code_key(const std::string& code) {
  std::string out;
  size_t pos = 0;
  while (pos < code.size()) {
    size_t nl = code.find('\n', pos);
    if (nl == std::string::npos) nl = code.size();
    std::string line = code.substr(pos, nl - pos);
    const size_t e = line.find_last_not_of(" \t\r");
    line.resize(e == std::string::npos ? 0 : e + 1);
    out += line + "\n";
    pos = nl + 1;
  }
  const size_t e = out.find_last_not_of('\n');
  return e == std::string::npos ? "" : out.substr(0, e + 1);
}

// One corpus entry from a JSON object; nullopt when it has no code to show.
std::optional<OneShotExample> example_of(const json& v, const std::string& file, int line,
                                         const std::string& prefix) {
  auto fail = [&](const std::string& field, const std::string& what) -> void {
    throw InputError(file, line, prefix + field, what);
  };
  if (!v.is_object()) fail("", std::string("expected a JSON object, got ") + v.type_name());
  auto text = [&](const char* field) -> std::optional<std::string> {
    auto it = v.find(field);
    if (it == v.end() || it->is_null()) return std::nullopt;
    if (!it->is_string()) fail(field, std::string("expected a string, got ") + it->type_name());
    return it->get<std::string>();
  };
  std::optional<std::string> instruction = text("instruction");
  if (!instruction) fail("instruction", "missing");
  std::optional<std::string> code = text("output");
  if (!code) code = text("code");
  if (!code) fail("output", "missing (the example's code, as `output` or `code`)");
  if (code->find_first_not_of(" \t\r\n") == std::string::npos) return std::nullopt;
  OneShotExample ex;
  ex.instruction = *instruction;
  ex.code = *code;
  std::optional<std::string> channel = text("channel"), f = text("file");
  if (channel && f) ex.key = *channel + "/" + *f;
  ex.source = line > 0 ? fmt::format("{}:{}", file, line) : fmt::format("{} {}", file, prefix);
  if (!ex.source.empty() && ex.source.back() == '.') ex.source.pop_back();
  return ex;
}

std::vector<OneShotExample> read_corpus_file(const fs::path& path) {
  std::vector<OneShotExample> out;
  for (const JsonRecord& r : read_json_records(path))
    if (auto ex = example_of(json(r.value), r.file, r.line, r.prefix)) out.push_back(*ex);
  return out;
}

bool word_byte(unsigned char c) { return std::isalnum(c) || c >= 0x80; }

struct Statement {
  sqlite3_stmt* st = nullptr;
  ~Statement() { sqlite3_finalize(st); }
};

}  // namespace

std::vector<OneShotExample> load_oneshot_corpus(const fs::path& path) {
  if (!fs::is_directory(path)) return read_corpus_file(path);
  TritonBench bench = load_tritonbench(path);
  std::vector<OneShotExample> out;
  for (const TritonOperator& op : bench.operators) {
    if (op.channel != TritonChannel::G) continue;
    const std::string key = "G/" + op.file;
    out.push_back(
        {op.simple_instruction, op.reference_code, key, "TritonBench " + key + " (simple)"});
    out.push_back(
        {op.complex_instruction, op.reference_code, key, "TritonBench " + key + " (complex)"});
  }
  return out;
}

std::string fts5_any_word_query(const std::string& text) {
  std::string query;
  std::unordered_set<std::string> seen;
  size_t i = 0;
  while (i < text.size() && seen.size() < kMaxQueryWords) {
    if (!word_byte(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < text.size() && word_byte(static_cast<unsigned char>(text[j]))) ++j;
    std::string word = text.substr(i, j - i);
    i = j;
    for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!seen.insert(word).second) continue;
    // Words hold no quote today; doubling them anyway keeps the quoting right if the rule for
    // word bytes ever widens.
    std::string quoted = "\"";
    for (char c : word) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    quoted += "\"";
    query += (query.empty() ? "" : " OR ") + quoted;
  }
  return query;
}

bool is_same_operator(const OneShotExample& example, const TritonOperator& op) {
  if (!example.key.empty() && example.key == std::string(channel_name(op.channel)) + "/" + op.file)
    return true;
  if (example.instruction == op.simple_instruction || example.instruction == op.complex_instruction)
    return true;
  if (!op.reference_code.empty() && code_key(example.code) == code_key(op.reference_code))
    return true;
  // The other kind's Alpaca entry, or any prompt built around this operator's description.
  const char* own[] = {"simp_instru", "comp_instru", "func_inputs"};
  for (const char* field : own) {
    auto it = op.statistics.find(field);
    if (it == op.statistics.end() || !it->is_string()) continue;
    const std::string& text = it->get_ref<const std::string&>();
    if (!text.empty() && example.instruction.find(text) != std::string::npos) return true;
  }
  return false;
}

OneShotIndex::OneShotIndex(std::vector<OneShotExample> examples, const std::string& db_path)
    : examples_(std::move(examples)) {
  auto fail = [&](const std::string& what) {
    std::string msg = "one-shot index " + db_path + ": " + what;
    if (db_) msg += ": " + std::string(sqlite3_errmsg(db_));
    sqlite3_close(db_);
    db_ = nullptr;
    throw std::runtime_error(msg);
  };
  if (sqlite3_open_v2(db_path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK)
    fail("cannot open");
  // The example's position in examples_ is its rowid; only the instruction is indexed, since a
  // query is an instruction. The default unicode61 tokenizer folds case and diacritics.
  const char* schema =
      "DROP TABLE IF EXISTS oneshot;"
      "CREATE VIRTUAL TABLE oneshot USING fts5(instruction);";
  if (sqlite3_exec(db_, schema, nullptr, nullptr, nullptr) != SQLITE_OK)
    fail("cannot create the FTS5 table (is SQLite built with FTS5?)");
  sqlite3_exec(db_, "BEGIN", nullptr, nullptr, nullptr);
  Statement insert;
  if (sqlite3_prepare_v2(db_, "INSERT INTO oneshot(rowid, instruction) VALUES (?, ?)", -1,
                         &insert.st, nullptr) != SQLITE_OK)
    fail("cannot prepare the insert");
  for (size_t i = 0; i < examples_.size(); ++i) {
    sqlite3_bind_int64(insert.st, 1, static_cast<sqlite3_int64>(i));
    sqlite3_bind_text(insert.st, 2, examples_[i].instruction.data(),
                      static_cast<int>(examples_[i].instruction.size()), SQLITE_STATIC);
    if (sqlite3_step(insert.st) != SQLITE_DONE) fail("cannot index example " + examples_[i].source);
    sqlite3_reset(insert.st);
  }
  if (sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK)
    fail("cannot commit the index");
}

OneShotIndex::~OneShotIndex() { sqlite3_close(db_); }

std::optional<OneShotExample> OneShotIndex::best(
    const std::string& instruction,
    const std::function<bool(const OneShotExample&)>& excluded) const {
  const std::string query = fts5_any_word_query(instruction);
  if (query.empty()) return std::nullopt;
  Statement select;
  // bm25() is smaller for better matches; rowid breaks ties so the answer is deterministic.
  if (sqlite3_prepare_v2(db_,
                         "SELECT rowid FROM oneshot WHERE oneshot MATCH ? "
                         "ORDER BY bm25(oneshot), rowid",
                         -1, &select.st, nullptr) != SQLITE_OK)
    throw std::runtime_error(std::string("one-shot query: ") + sqlite3_errmsg(db_));
  sqlite3_bind_text(select.st, 1, query.data(), static_cast<int>(query.size()), SQLITE_STATIC);
  int rc;
  while ((rc = sqlite3_step(select.st)) == SQLITE_ROW) {
    const sqlite3_int64 row = sqlite3_column_int64(select.st, 0);
    if (row < 0 || static_cast<size_t>(row) >= examples_.size()) continue;
    const OneShotExample& ex = examples_[static_cast<size_t>(row)];
    if (excluded && excluded(ex)) continue;
    return ex;
  }
  if (rc != SQLITE_DONE)
    throw std::runtime_error(std::string("one-shot query: ") + sqlite3_errmsg(db_));
  return std::nullopt;
}

std::optional<OneShotExample> OneShotIndex::best_for(const TritonOperator& op,
                                                     const std::string& instruction) const {
  return best(instruction, [&](const OneShotExample& ex) { return is_same_operator(ex, op); });
}

}  // namespace kjudge::triton
