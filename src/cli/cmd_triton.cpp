// kjudge triton {list, show}: a look at a TritonBench data folder. A command of its own rather
// than `problems list`: a TritonBench operator has no build or test command and its reference
// is Python, so forcing it into the ComputeEval Problem model would invent fields.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "core/input_error.h"
#include "core/tritonbench.h"

namespace kjudge {
namespace {

struct TritonArgs {
  std::string dir;
  std::string op;
  std::string channel;  // "", "G" or "T"
  int difficulty = 0;   // 0: all
  bool json = false;
  bool code = false;
};

std::optional<TritonChannel> channel_filter(const std::string& c) {
  if (c.empty()) return std::nullopt;
  return c == "G" ? TritonChannel::G : TritonChannel::T;
}

size_t line_count(const std::string& s) {
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')) +
         (!s.empty() && s.back() != '\n');
}

nlohmann::ordered_json brief_json(const TritonOperator& op) {
  return {{"channel", channel_name(op.channel)},
          {"name", op.name},
          {"file", op.file},
          {"difficulty", op.difficulty},
          {"reference_lines", line_count(op.reference_code)},
          {"test_lines", line_count(op.test_code)}};
}

void cmd_list(const TritonArgs& a, int& rc) {
  TritonBench bench = load_tritonbench(a.dir);
  auto channel = channel_filter(a.channel);
  std::vector<const TritonOperator*> shown;
  for (const TritonOperator& op : bench.operators)
    if ((!channel || op.channel == *channel) &&
        (a.difficulty == 0 || op.difficulty == a.difficulty))
      shown.push_back(&op);
  if (a.json) {
    nlohmann::ordered_json arr = nlohmann::ordered_json::array();
    for (const TritonOperator* op : shown) arr.push_back(brief_json(*op));
    fmt::print("{}\n", arr.dump(2));
  } else {
    fmt::print("{:<2} {:<40} {:<5} {:>5} {:>5}\n", "CH", "OPERATOR", "LEVEL", "REF", "TEST");
    for (const TritonOperator* op : shown)
      fmt::print("{:<2} {:<40} {:<5} {:>5} {:>5}\n", channel_name(op->channel), op->name,
                 op->difficulty, line_count(op->reference_code), line_count(op->test_code));
    fmt::print("{} operators\n", shown.size());
  }
  rc = exit_code::ok;
}

void cmd_show(const TritonArgs& a, int& rc) {
  TritonBench bench = load_tritonbench(a.dir);
  const TritonOperator* op = bench.find(a.op, channel_filter(a.channel));
  if (!op) throw InputError(a.dir, 0, "operator", "no operator '" + a.op + "' in this folder");
  if (a.json) {
    nlohmann::ordered_json j = brief_json(*op);
    j["simple_instruction"] = op->simple_instruction;
    j["complex_instruction"] = op->complex_instruction;
    j["reference_code"] = op->reference_code;
    j["test_code"] = op->test_code;
    j["statistics"] = op->statistics;
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("{}/{}  ({}, difficulty {})\n", channel_name(op->channel), op->name, op->file,
               op->difficulty);
    fmt::print("\n--- simple instruction ---\n{}\n", op->simple_instruction);
    fmt::print("\n--- complex instruction ---\n{}\n", op->complex_instruction);
    if (a.code) {
      fmt::print("\n--- reference code ---\n{}\n", op->reference_code);
      fmt::print("\n--- test code ---\n{}\n", op->test_code);
    } else {
      fmt::print("\nreference code: {} lines, test code: {} lines (--code prints them)\n",
                 line_count(op->reference_code), line_count(op->test_code));
    }
  }
  rc = exit_code::ok;
}

}  // namespace

void add_triton_commands(CLI::App& app, int& rc) {
  auto* triton = app.add_subcommand("triton", "Inspect a TritonBench data folder (docs/triton.md)");
  triton->require_subcommand(1);

  auto list = std::make_shared<TritonArgs>();
  auto* l = triton->add_subcommand("list", "List the operators of G and T");
  l->add_option("DIR", list->dir, "TritonBench data folder")->required();
  l->add_option("--channel", list->channel, "G or T")->check(CLI::IsMember({"G", "T"}));
  l->add_option("--difficulty", list->difficulty, "1..5")->check(CLI::Range(1, 5));
  l->add_flag("--json", list->json, "JSON array on stdout");
  l->callback([list, &rc] { cmd_list(*list, rc); });

  auto show = std::make_shared<TritonArgs>();
  auto* s = triton->add_subcommand("show", "Show one operator");
  s->add_option("DIR", show->dir, "TritonBench data folder")->required();
  s->add_option("OPERATOR", show->op, "name or file, e.g. add_example or torch.div")->required();
  s->add_option("--channel", show->channel, "G or T")->check(CLI::IsMember({"G", "T"}));
  s->add_flag("--json", show->json, "The operator as JSON, code and statistics included");
  s->add_flag("--code", show->code, "Also print the reference and test code");
  s->callback([show, &rc] { cmd_show(*show, rc); });
}

}  // namespace kjudge
