#include "export/inspect_sample.h"

#include <fmt/format.h>

#include <algorithm>

#include "report/html_text.h"

namespace kjudge::exports {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// A Markdown fence longer than any run of backticks in `text`, so no file can close it early.
std::string fence_for(const std::string& text) {
  std::size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return std::string(std::max<std::size_t>(3, longest + 1), '`');
}

// The solution's files as the assistant's answer, each under its path.
std::string files_text(const std::vector<SourceFile>& files) {
  std::string out;
  for (const SourceFile& f : files) {
    const std::string fence = fence_for(f.content);
    if (!out.empty()) out += "\n";
    out += fmt::format("`{}`\n\n{}\n{}{}{}\n", f.path, fence, f.content,
                       f.content.empty() || f.content.back() == '\n' ? "" : "\n", fence);
  }
  return out;
}

ordered_json step_metadata(const json& step, std::size_t log_bytes) {
  ordered_json m = {{"ran", step.value("ran", false)},
                    {"seconds", step.value("seconds", 0.0)},
                    {"exit_code", step.value("exit_code", -1)}};
  if (step.value("signal", 0)) m["signal"] = step["signal"];
  if (step.value("timed_out", false)) m["timed_out"] = true;
  if (step.value("cached", false)) m["cached"] = true;
  if (log_bytes > 0) m["log"] = report::head_tail(step.value("log", ""), log_bytes);
  return m;
}

}  // namespace

std::string inspect_score_value(const json& row) {
  const std::string v = row.value("verdict", "");
  if (v == "pass") return "C";
  return report::counted(row) ? "I" : "N";
}

ordered_json inspect_sample(const report::RunData& run, const json& row,
                            const InspectSampleOptions& o) {
  const std::string task_id = row["task_id"].get<std::string>();
  const int sample = row["sample"].get<int>();
  const std::string verdict = row.value("verdict", "");

  const auto problem = run.problems.find(task_id);
  const std::string prompt = problem != run.problems.end() ? problem->second.prompt : "";
  const auto files = run.solution_files.find({task_id, sample});
  const std::string answer = files != run.solution_files.end() ? files_text(files->second) : "";

  ordered_json messages = ordered_json::array();
  if (!prompt.empty())
    messages.push_back({{"role", "user"}, {"content", prompt}, {"source", "input"}});
  ordered_json assistant = {
      {"role", "assistant"}, {"content", answer}, {"source", "generate"}, {"model", o.model}};
  if (!answer.empty()) messages.push_back(assistant);

  ordered_json scores = {
      {"verdict",
       {{"value", inspect_score_value(row)},
        {"answer", verdict},
        {"explanation", row.value("detail", "")},
        {"metadata", {{"verdict", verdict}, {"counted", report::counted(row)}}}}}};

  ordered_json meta = {{"task_id", task_id},
                       {"sample", sample},
                       {"group", row.value("group", "")},
                       {"difficulty", row.value("difficulty", "")},
                       {"verdict", verdict},
                       {"detail", row.value("detail", "")}};
  if (row.contains("skip_reason")) meta["skip_reason"] = row["skip_reason"];
  meta["gpu"] = row.value("gpu", -1);
  meta["seconds"] = row.value("seconds", 0.0);
  for (const char* step : {"build", "test"})
    if (row.contains(step) && row[step].is_object())
      meta[step] = step_metadata(row[step], o.log_bytes);
  for (const char* key : {"cheat_flags", "repeats", "flaky", "sanitizer"})
    if (row.contains(key)) meta[key] = row[key];

  const auto perf = run.perf.find({task_id, sample});
  if (perf != run.perf.end()) {
    const json& p = perf->second;
    if (p.value("timed", false) && p.contains("speedup") && p["speedup"].is_object()) {
      const json& s = p["speedup"];
      scores["speedup"] = {
          {"value", s.value("estimate", 0.0)},
          {"answer", fmt::format("{:.3f}x", s.value("estimate", 0.0))},
          {"explanation",
           fmt::format("baseline time / solution time {:.3f}, [{:.3f}, {:.3f}] at {:g}%",
                       s.value("estimate", 0.0), s.value("low", 0.0), s.value("high", 0.0),
                       100 * s.value("confidence", 0.95))},
          {"metadata",
           {{"low", s.value("low", 0.0)},
            {"high", s.value("high", 0.0)},
            {"confidence", s.value("confidence", 0.95)}}}};
      meta["speedup"] = s;
    } else if (p.contains("not_timed")) {
      meta["not_timed"] = p["not_timed"];
    }
    if (p.contains("cheat_flags")) meta["perf_cheat_flags"] = p["cheat_flags"];
  }

  ordered_json choices = ordered_json::array();
  if (!answer.empty()) choices.push_back({{"message", assistant}, {"stop_reason", "stop"}});
  return {{"id", task_id},
          {"epoch", sample + 1},
          {"input", prompt.empty() ? task_id : prompt},
          {"target", "pass"},
          {"messages", messages},
          {"output", {{"model", o.model}, {"choices", choices}, {"completion", answer}}},
          {"scores", scores},
          {"metadata", meta},
          {"total_time", row.value("seconds", 0.0)}};
}

}  // namespace kjudge::exports
