// Loading a TritonBench data folder into operators.
// Declared, and explained, in triton/data/tritonbench.h.
#include "triton/data/tritonbench.h"

#include <fmt/format.h>

#include <map>
#include <utility>

#include "core/input_error.h"
#include "core/json_records.h"
#include "triton/data/split.h"

namespace kjudge::triton {
namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

using Record = JsonRecord;

// G gives "3", T gives 3; anything outside 1..5 is a broken entry, not a new level.
int read_difficulty(const Record& r) {
  const ordered_json& v = r.at("difficulty");
  int d = 0;
  if (v.is_number_integer()) {
    d = v.get<int>();
  } else if (v.is_string() && v.get<std::string>().size() == 1) {
    d = v.get<std::string>()[0] - '0';
  } else {
    r.fail("difficulty", "expected 1..5 (an integer or a one-digit string)");
  }
  if (d < 1 || d > 5) r.fail("difficulty", "expected 1..5");
  return d;
}

// The Alpaca files carry no key back to their operator: they align with the statistics by
// position. The check that each instruction contains its operator's own text proves the
// alignment instead of assuming it.
void attach_instructions(const fs::path& path, std::vector<TritonOperator>& ops,
                         const std::string& must_contain_field, bool simple) {
  std::vector<Record> recs = read_json_records(path);
  if (recs.size() != ops.size()) {
    throw InputError(
        path.filename().string(), 0, "",
        fmt::format("{} entries, but the statistics file has {}", recs.size(), ops.size()));
  }
  for (size_t i = 0; i < recs.size(); ++i) {
    std::string instruction = recs[i].text("instruction");
    const std::string& needle =
        ops[i].statistics.at(must_contain_field).get_ref<const std::string&>();
    if (instruction.find(needle) == std::string::npos) {
      recs[i].fail("instruction",
                   fmt::format("does not contain the {} of operator {} at the same position: the "
                               "file is out of step with the statistics",
                               must_contain_field, ops[i].file));
    }
    (simple ? ops[i].simple_instruction : ops[i].complex_instruction) = std::move(instruction);
  }
}

std::vector<TritonOperator> read_statistics(const fs::path& path, TritonChannel channel) {
  std::vector<TritonOperator> ops;
  for (Record& r : read_json_records(path)) {
    TritonOperator op;
    op.channel = channel;
    op.file = r.text("file");
    if (channel == TritonChannel::G) {
      op.name = op.file.ends_with(".py") ? op.file.substr(0, op.file.size() - 3) : op.file;
      // Checked here so that attach_instructions may rely on them.
      r.text("simp_instru");
      r.text("comp_instru");
    } else {
      op.name = r.text("name");
      r.text("func_inputs");
    }
    op.difficulty = read_difficulty(r);
    op.statistics = std::move(r.value);
    ops.push_back(std::move(op));
  }
  return ops;
}

using OperatorKey = std::pair<TritonChannel, std::string>;

std::map<OperatorKey, SplitOperatorFile> read_operator_files(const fs::path& path) {
  std::map<OperatorKey, SplitOperatorFile> out;
  for (const Record& r : read_json_records(path)) {
    std::string channel = r.text("channel");
    if (channel != "G" && channel != "T") r.fail("channel", "expected \"G\" or \"T\"");
    OperatorKey key{channel == "G" ? TritonChannel::G : TritonChannel::T, r.text("file")};
    std::string entry = channel + "/" + key.second;
    SplitOperatorFile split =
        split_operator_file(r.text("content"), {r.file, r.line, r.prefix + "content", entry});
    if (!out.emplace(std::move(key), std::move(split)).second)
      r.fail("file", entry + " appears twice");
  }
  return out;
}

}  // namespace

std::string_view channel_name(TritonChannel c) { return c == TritonChannel::G ? "G" : "T"; }

const TritonOperator* TritonBench::find(std::string_view key,
                                        std::optional<TritonChannel> channel) const {
  for (const TritonOperator& op : operators) {
    if (channel && op.channel != *channel) continue;
    if (op.name == key || op.file == key) return &op;
    if (op.file.size() == key.size() + 3 && op.file.starts_with(key) && op.file.ends_with(".py"))
      return &op;
  }
  return nullptr;
}

TritonBench load_tritonbench(const fs::path& dir) {
  namespace f = tritonbench_files;
  if (!fs::is_directory(dir))
    throw InputError(dir.string(), 0, "", "not a directory (expected a TritonBench data folder)");

  std::vector<TritonOperator> g = read_statistics(dir / f::kGStatistics, TritonChannel::G);
  attach_instructions(dir / f::kGSimple, g, "simp_instru", true);
  attach_instructions(dir / f::kGComplex, g, "comp_instru", false);
  std::vector<TritonOperator> t = read_statistics(dir / f::kTStatistics, TritonChannel::T);
  attach_instructions(dir / f::kTSimple, t, "func_inputs", true);
  attach_instructions(dir / f::kTComplex, t, "func_inputs", false);

  std::map<OperatorKey, SplitOperatorFile> files = read_operator_files(dir / f::kOperatorFiles);
  TritonBench bench;
  for (auto* list : {&g, &t}) {
    for (TritonOperator& op : *list) {
      auto it = files.find({op.channel, op.file});
      if (it == files.end()) {
        throw InputError(
            f::kOperatorFiles, 0, "file",
            fmt::format("no operator file for {}/{} (named in {})", channel_name(op.channel),
                        op.file,
                        op.channel == TritonChannel::G ? f::kGStatistics : f::kTStatistics));
      }
      op.reference_code = std::move(it->second.reference_code);
      op.test_code = std::move(it->second.test_code);
      files.erase(it);
      bench.operators.push_back(std::move(op));
    }
  }
  // An operator file no statistics entry names would never be judged: say so rather than
  // shrink the benchmark unnoticed.
  if (!files.empty()) {
    const OperatorKey& k = files.begin()->first;
    throw InputError(f::kOperatorFiles, 0, "file",
                     fmt::format("{}/{} has no entry in the statistics files ({} such files)",
                                 channel_name(k.first), k.second, files.size()));
  }
  return bench;
}

}  // namespace kjudge::triton
