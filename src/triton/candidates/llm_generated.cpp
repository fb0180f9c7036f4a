// Triton candidates: generated ones and the paper's published LLM_generated outputs.
// Declared, and explained, in triton/candidates/llm_generated.h.
#include "triton/candidates/llm_generated.h"

#include <fmt/format.h>

#include <map>
#include <unordered_map>

#include "core/input_error.h"
#include "core/read_file.h"
#include "triton/candidates/prompt.h"

namespace kjudge::triton {
namespace {

using nlohmann::json;

struct Target {
  const TritonOperator* op;
  InstructionKind kind;
};

// Line ends and surrounding whitespace aside: a file written on Windows, or by a tool that
// strips the trailing newline, still names the same prompt.
std::string normalized(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i)
    if (!(s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n')) out += s[i];
  const size_t b = out.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return out.substr(b, out.find_last_not_of(" \t\r\n") - b + 1);
}

std::string trimmed_end(const std::string& s) {
  const size_t e = s.find_last_not_of(" \t\r\n");
  return e == std::string::npos ? "" : s.substr(0, e + 1);
}

// The first characters of an instruction, on one line, for the unmatched list.
std::string start_of(const std::string& s) {
  std::string out;
  for (char c : s.substr(0, 120)) out += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
  return s.size() > 120 ? out + "..." : out;
}

const std::string& string_field(const json& obj, const char* field, const std::string& file,
                                int line) {
  auto it = obj.find(field);
  if (it == obj.end()) throw InputError(file, line, field, "missing");
  if (!it->is_string())
    throw InputError(file, line, field, std::string("expected a string, got ") + it->type_name());
  return it->get_ref<const std::string&>();
}

}  // namespace

std::string_view instruction_kind_name(InstructionKind k) {
  return k == InstructionKind::simple ? "simple" : "complex";
}

std::optional<InstructionKind> parse_instruction_kind(std::string_view s) {
  if (s == "simple" || s == "simp") return InstructionKind::simple;
  if (s == "complex" || s == "comp") return InstructionKind::complex;
  return std::nullopt;
}

const std::string& instruction_of(const TritonOperator& op, InstructionKind k) {
  return k == InstructionKind::simple ? op.simple_instruction : op.complex_instruction;
}

json triton_solution_json(const TritonCandidate& c) {
  return {{"channel", std::string(channel_name(c.channel))},
          {"file", c.file},
          {"operator", c.operator_name},
          {"code", c.code},
          {"sample", c.sample},
          {"instruction", std::string(instruction_kind_name(c.instruction))}};
}

LlmGeneratedFile read_llm_generated(const std::filesystem::path& path, const TritonBench& bench) {
  const std::string name = path.filename().string();
  const std::string content = read_input_file(path);

  // Every shipped instruction is distinct (checked on the real data: 700 of them, no two
  // alike), so equality names one operator and one kind.
  std::unordered_map<std::string, Target> exact, loose;
  for (const TritonOperator& op : bench.operators)
    for (InstructionKind k : {InstructionKind::simple, InstructionKind::complex}) {
      exact.emplace(instruction_of(op, k), Target{&op, k});
      loose.emplace(normalized(instruction_of(op, k)), Target{&op, k});
    }

  LlmGeneratedFile out;
  std::map<std::pair<TritonChannel, std::string>, int> samples;
  int line_no = 0;
  size_t pos = 0;
  while (pos < content.size()) {
    size_t nl = content.find('\n', pos);
    if (nl == std::string::npos) nl = content.size();
    std::string_view line(content.data() + pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (line_no == 1 && line.starts_with("\xEF\xBB\xBF")) line.remove_prefix(3);  // a BOM
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    json obj;
    try {
      obj = json::parse(line);
    } catch (const json::parse_error& e) {
      throw InputError(name, line_no, "", std::string("not valid JSON: ") + e.what());
    }
    if (!obj.is_object())
      throw InputError(name, line_no, "",
                       std::string("expected a JSON object, got ") + obj.type_name());
    const std::string& instruction = string_field(obj, "instruction", name, line_no);
    const std::string& predict = string_field(obj, "predict", name, line_no);
    std::string label;
    if (auto it = obj.find("label"); it != obj.end() && !it->is_null()) {
      if (!it->is_string())
        throw InputError(name, line_no, "label",
                         std::string("expected a string, got ") + it->type_name());
      label = it->get<std::string>();
    }

    const Target* target = nullptr;
    if (auto it = exact.find(instruction); it != exact.end())
      target = &it->second;
    else if (auto it2 = loose.find(normalized(instruction)); it2 != loose.end())
      target = &it2->second;
    if (!target) {
      out.unmatched.push_back({line_no,
                               "the instruction is none of the loaded TritonBench instructions",
                               start_of(instruction)});
      continue;
    }
    const TritonOperator& op = *target->op;
    TritonCandidate c;
    c.channel = op.channel;
    c.file = op.file;
    c.operator_name = op.name;
    c.instruction = target->kind;
    c.sample = samples[{op.channel, op.file}]++;
    c.label = label;
    c.source = fmt::format("{}:{}", name, line_no);
    TritonCode code = extract_triton_code(predict, op.file);
    c.code = std::move(code.code);
    c.code_error = std::move(code.error);
    c.warnings = std::move(code.warnings);
    // G's label is the reference code: one that differs says the line was paired with another
    // operator upstream, or edited. Worth a word, not a refusal: the judge's reference is the
    // operator file either way.
    if (op.channel == TritonChannel::G && !label.empty() && op.statistics.contains("output") &&
        op.statistics["output"].is_string() &&
        trimmed_end(label) != trimmed_end(op.statistics["output"].get<std::string>()))
      c.warnings.push_back("the label differs from the operator's reference code");
    out.candidates.push_back(std::move(c));
  }
  return out;
}

}  // namespace kjudge::triton
