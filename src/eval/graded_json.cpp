#include "eval/graded_json.h"

#include <stdexcept>

namespace kjudge {
namespace {

nlohmann::json step_to_json(const StepRecord& s) {
  nlohmann::json j = {{"ran", s.ran},
                      {"exit_code", s.exit_code},
                      {"signal", s.signal},
                      {"timed_out", s.timed_out},
                      {"seconds", s.wall_s},
                      {"attempts", s.attempts},
                      {"log", s.log},
                      {"log_truncated", s.log_truncated},
                      {"log_bytes", s.log_bytes}};
  if (s.cached) j["cached"] = true;
  if (s.quiet_retry) j["quiet_retry"] = true;
  if (s.memory_peak_bytes) j["memory_peak_bytes"] = s.memory_peak_bytes;
  return j;
}

StepRecord step_from_json(const nlohmann::json& j) {
  StepRecord s;
  s.ran = j.value("ran", false);
  s.cached = j.value("cached", false);
  s.exit_code = j.value("exit_code", -1);
  s.signal = j.value("signal", 0);
  s.timed_out = j.value("timed_out", false);
  s.wall_s = j.value("seconds", 0.0);
  s.attempts = j.value("attempts", 0);
  s.log = j.value("log", "");
  s.log_truncated = j.value("log_truncated", false);
  s.log_bytes = j.value("log_bytes", std::size_t{0});
  s.quiet_retry = j.value("quiet_retry", false);
  s.memory_peak_bytes = j.value("memory_peak_bytes", std::uint64_t{0});
  return s;
}

}  // namespace

nlohmann::json graded_to_json(const GradedSolution& g) {
  // schema_version: docs/json-schemas.md; readers accept rows without it (older runs).
  nlohmann::json j = {{"schema_version", 1},
                      {"task_id", g.task_id},
                      {"sample", g.sample},
                      {"group", g.group},
                      {"difficulty", g.difficulty},
                      {"verdict", std::string(to_string(g.verdict))},
                      {"passed", g.verdict == Verdict::pass},
                      {"detail", g.detail},
                      {"gpu", g.gpu},
                      {"seconds", g.total_s},
                      {"build", step_to_json(g.build)},
                      {"test", step_to_json(g.test)}};
  if (!g.skip_code.empty()) j["skip_reason"] = g.skip_code;
  if (!g.flags.empty()) j["cheat_flags"] = flags_json(g.flags);
  return j;
}

GradedSolution graded_from_json(const nlohmann::json& j) {
  GradedSolution g;
  g.task_id = j.at("task_id").get<std::string>();
  g.sample = j.at("sample").get<int>();
  auto v = verdict_from_string(j.at("verdict").get<std::string>());
  if (!v) throw std::runtime_error("unknown verdict " + j.at("verdict").dump());
  g.verdict = *v;
  g.group = j.value("group", "");
  g.difficulty = j.value("difficulty", "");
  g.detail = j.value("detail", "");
  g.skip_code = j.value("skip_reason", "");
  g.gpu = j.value("gpu", -1);
  g.total_s = j.value("seconds", 0.0);
  if (j.contains("build")) g.build = step_from_json(j["build"]);
  if (j.contains("test")) g.test = step_from_json(j["test"]);
  // A resumed run keeps its flags; the string form (docs/json-schemas.md) becomes a reason.
  if (j.contains("cheat_flags") && j["cheat_flags"].is_array())
    for (const auto& f : j["cheat_flags"]) {
      if (f.is_string()) {
        g.flags.push_back({"", "", 0, f.get<std::string>()});
      } else if (f.is_object()) {
        g.flags.push_back(
            {f.value("check", ""), f.value("file", ""), f.value("line", 0), f.value("detail", "")});
      }
    }
  return g;
}

}  // namespace kjudge
