// Applying the table of TritonBench operators whose own tests are broken (defect_table.cpp).
// Declared, and explained, in triton/judge/defects.h.
#include "triton/judge/defects.h"

#include <algorithm>

namespace kjudge::triton {

std::string_view triton_defect_action_name(TritonDefectAction a) {
  switch (a) {
    case TritonDefectAction::exclude:
      return "exclude";
    case TritonDefectAction::skip_entries:
      return "skip_entries";
    case TritonDefectAction::zero_fill:
      return "zero_fill";
    case TritonDefectAction::entry_args:
      return "entry_args";
  }
  return "?";
}

const TritonDefect* find_triton_defect(const std::vector<TritonDefect>& table,
                                       const TritonOperator& op) {
  for (const TritonDefect& d : table)
    if (d.channel == op.channel && d.op == op.name) return &d;
  return nullptr;
}

bool triton_entry_skipped(const std::vector<std::string>& entries, const std::string& name) {
  for (const std::string& e : entries) {
    if (name.size() < e.size() || name.compare(0, e.size(), e) != 0) continue;
    if (name.size() == e.size()) return true;
    const char next = name[e.size()];
    if (next == '.' || next == '[' || next == '#') return true;
  }
  return false;
}

std::size_t remove_skipped_entries(const std::vector<std::string>& entries, OutputSet& outputs) {
  auto& v = outputs.entries;
  const std::size_t before = v.size();
  v.erase(
      std::remove_if(v.begin(), v.end(),
                     [&](const OutputEntry& e) { return triton_entry_skipped(entries, e.name); }),
      v.end());
  return before - v.size();
}

std::vector<std::string> triton_kept_arg_names(const TritonDefect& d) {
  std::vector<std::string> out;
  for (int i : d.args) out.push_back("args[" + std::to_string(i) + "]");
  return out;
}

std::string triton_defect_brief(const TritonDefect& d) {
  std::string out(triton_defect_action_name(d.action));
  for (std::size_t i = 0; i < d.entries.size(); ++i) out += (i == 0 ? " " : ", ") + d.entries[i];
  if (d.action == TritonDefectAction::entry_args) {
    out += " " + d.entry;
    const std::vector<std::string> kept = triton_kept_arg_names(d);
    for (std::size_t i = 0; i < kept.size(); ++i) out += (i == 0 ? " " : ", ") + kept[i];
  }
  const char* lead = d.sites.size() == 1 ? " (timed site " : " (timed sites ";
  for (std::size_t i = 0; i < d.sites.size(); ++i)
    out += (i == 0 ? lead : ", ") + std::to_string(d.sites[i]);
  if (!d.sites.empty()) out += ")";
  return out;
}

nlohmann::ordered_json triton_defect_json(const TritonDefect& d) {
  nlohmann::ordered_json j = {{"operator", std::string(channel_name(d.channel)) + "/" + d.op},
                              {"action", triton_defect_action_name(d.action)},
                              {"entries", d.entries},
                              {"reason", d.reason}};
  if (d.action == TritonDefectAction::entry_args) {
    j["entry"] = d.entry;
    j["args"] = d.args;
  }
  if (!d.sites.empty()) j["sites"] = d.sites;
  return j;
}

nlohmann::ordered_json triton_skipped_entries_json(const TritonDefect& d) {
  nlohmann::ordered_json arr = nlohmann::ordered_json::array();
  if (d.action == TritonDefectAction::skip_entries)
    for (const std::string& e : d.entries) arr.push_back({{"entry", e}, {"reason", d.reason}});
  return arr;
}

}  // namespace kjudge::triton
