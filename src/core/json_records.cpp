#include "core/json_records.h"

#include <fmt/format.h>

#include <string_view>

#include "core/input_error.h"
#include "core/read_file.h"

namespace kjudge {

using nlohmann::ordered_json;

void JsonRecord::fail(const std::string& field, const std::string& what) const {
  throw InputError(file, line, prefix + field, what);
}

const ordered_json& JsonRecord::at(const std::string& field) const {
  if (!value.is_object()) fail("", std::string("expected a JSON object, got ") + value.type_name());
  auto it = value.find(field);
  if (it == value.end()) fail(field, "missing");
  return *it;
}

std::string JsonRecord::text(const std::string& field) const {
  const ordered_json& v = at(field);
  if (!v.is_string()) fail(field, std::string("expected a string, got ") + v.type_name());
  return v.get<std::string>();
}

std::vector<JsonRecord> read_json_records(const std::filesystem::path& path) {
  const std::string name = path.filename().string();
  std::string content = read_input_file(path);
  if (std::string_view(content).starts_with("\xEF\xBB\xBF")) content.erase(0, 3);
  std::vector<JsonRecord> out;
  const size_t first = content.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && content[first] == '[') {
    ordered_json arr;
    try {
      arr = ordered_json::parse(content);
    } catch (const ordered_json::exception& e) {
      // out_of_range too: a number such as 1e999 is the file's fault, with its name.
      throw InputError(name, 0, "", std::string("not valid JSON: ") + e.what());
    }
    if (arr.empty()) throw InputError(name, 0, "", "the list is empty (no records)");
    for (size_t i = 0; i < arr.size(); ++i)
      out.push_back({std::move(arr[i]), name, 0, fmt::format("[{}].", i)});
    return out;
  }
  int line_no = 0;
  size_t pos = 0;
  while (pos < content.size()) {
    size_t nl = content.find('\n', pos);
    if (nl == std::string::npos) nl = content.size();
    std::string_view line(content.data() + pos, nl - pos);
    ++line_no;
    pos = nl + 1;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    try {
      out.push_back({ordered_json::parse(line), name, line_no, ""});
    } catch (const ordered_json::exception& e) {
      throw InputError(name, line_no, "", std::string("not valid JSON: ") + e.what());
    }
  }
  // An empty file is a truncated copy, not a dataset without entries.
  if (out.empty()) throw InputError(name, 0, "", "the file is empty (no records)");
  return out;
}

}  // namespace kjudge
