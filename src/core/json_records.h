#pragma once
// Reading a file of JSON records that may hold them as one JSON array or as JSON lines:
// upstream TritonBench names a file .jsonl that holds one array, and corpora users bring come
// in both shapes. Each record keeps where it came from so errors can name the file, the line
// (JSON lines) or the index (arrays) and the field.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kjudge {

struct JsonRecord {
  nlohmann::ordered_json value;
  std::string file;    // the file's name, as errors show it
  int line = 0;        // JSON lines: 1-based line; arrays: 0
  std::string prefix;  // arrays: "[index]."; JSON lines: ""

  [[noreturn]] void fail(const std::string& field, const std::string& what) const;
  // The field of an object record; fails naming it when the record is no object or lacks it.
  const nlohmann::ordered_json& at(const std::string& field) const;
  // A string field; fails when missing or of another type.
  std::string text(const std::string& field) const;
};

// Every record of `path`: the elements of a top-level array, or one record per non-blank line
// (a UTF-8 byte order mark at the start is skipped). Malformed JSON is an InputError naming the
// file and the line.
std::vector<JsonRecord> read_json_records(const std::filesystem::path& path);

}  // namespace kjudge
