// Reading a Triton solutions file ({operator|file, code} per line).
// Declared, and explained, in triton/candidates/solutions.h.
#include "triton/candidates/solutions.h"

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/input_error.h"
#include "core/read_file.h"

namespace kjudge::triton {

std::vector<TritonSolution> read_triton_solutions(const std::filesystem::path& file,
                                                  const TritonBench& bench) {
  const std::string name = file.string();
  const std::string content = read_input_file(file);
  std::vector<TritonSolution> out;
  std::map<const TritonOperator*, std::set<int>> samples;
  std::size_t pos = 0;
  int line_no = 0;
  while (pos < content.size()) {
    std::size_t nl = content.find('\n', pos);
    if (nl == std::string::npos) nl = content.size();
    const std::string line = content.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::parse_error& e) {
      throw InputError(name, line_no, "", std::string("not JSON: ") + e.what());
    }
    if (!j.is_object()) throw InputError(name, line_no, "", "expected a JSON object");
    auto text = [&](const char* key) -> std::string {
      if (!j.contains(key)) return "";
      if (!j[key].is_string()) throw InputError(name, line_no, key, "not a string");
      return j[key].get<std::string>();
    };
    std::string key = text("operator");
    const std::string field = key.empty() ? "file" : "operator";
    if (key.empty()) key = text("file");
    if (key.empty())
      throw InputError(name, line_no, "operator", "missing (give \"operator\" or \"file\")");
    std::optional<TritonChannel> channel;
    const std::string ch = text("channel");
    if (ch == "G")
      channel = TritonChannel::G;
    else if (ch == "T")
      channel = TritonChannel::T;
    else if (!ch.empty())
      throw InputError(name, line_no, "channel", "'" + ch + "' is not G or T");
    const TritonOperator* op = bench.find(key, channel);
    if (!op)
      throw InputError(name, line_no, field,
                       "no operator '" + key + "' in the data folder" +
                           (ch.empty() ? "" : " (channel " + ch + ")"));
    if (!channel &&
        bench.find(key, op->channel == TritonChannel::G ? TritonChannel::T : TritonChannel::G))
      throw InputError(name, line_no, "channel",
                       "'" + key + "' exists in both channels: say which (\"channel\": \"G\")");
    if (!j.contains("code")) throw InputError(name, line_no, "code", "missing");
    const std::string code = text("code");
    TritonSolution s{op, code, 0, name + ":" + std::to_string(line_no)};
    if (j.contains("sample")) {
      if (!j["sample"].is_number_integer() || j["sample"].get<long long>() < 0 ||
          j["sample"].get<long long>() > 1000000)
        throw InputError(name, line_no, "sample", "not a sample number (0..1000000)");
      s.sample = j["sample"].get<int>();
    } else {
      s.sample = samples[op].empty() ? 0 : *samples[op].rbegin() + 1;
    }
    if (!samples[op].insert(s.sample).second)
      throw InputError(name, line_no, "sample",
                       "sample " + std::to_string(s.sample) + " of " + op->name + " given twice");
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace kjudge::triton
