#include "eval/graded_json.h"

#include <stdexcept>

#include "eval/sanitizer.h"

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
  if (s.extended_limit_s > 0) j["extended_limit_s"] = s.extended_limit_s;
  if (s.cpu_limited) {
    j["cpu_limited"] = true;
    j["cpu_seconds"] = s.cpu_s;
  }
  if (s.lost_s >= 0) j["lost_seconds"] = s.lost_s;
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
  s.extended_limit_s = j.value("extended_limit_s", 0.0);
  s.cpu_limited = j.value("cpu_limited", false);
  s.cpu_s = j.value("cpu_seconds", 0.0);
  s.lost_s = j.value("lost_seconds", -1.0);
  return s;
}

Verdict verdict_of(const nlohmann::json& j) {
  auto v = verdict_from_string(j.at("verdict").get<std::string>());
  if (!v) throw std::runtime_error("unknown verdict " + j.at("verdict").dump());
  return *v;
}

nlohmann::json repeats_to_json(const std::vector<TestRun>& runs) {
  nlohmann::json a = nlohmann::json::array();
  for (const TestRun& r : runs) {
    nlohmann::json j = {{"verdict", std::string(to_string(r.verdict))},
                        {"exit_code", r.exit_code},
                        {"seconds", r.wall_s}};
    if (!r.detail.empty()) j["detail"] = r.detail;
    if (r.signal) j["signal"] = r.signal;
    if (r.timed_out) j["timed_out"] = true;
    a.push_back(std::move(j));
  }
  return a;
}

TestRun repeat_from_json(const nlohmann::json& j) {
  TestRun r;
  r.verdict = verdict_of(j);
  r.detail = j.value("detail", "");
  r.exit_code = j.value("exit_code", -1);
  r.signal = j.value("signal", 0);
  r.timed_out = j.value("timed_out", false);
  r.wall_s = j.value("seconds", 0.0);
  return r;
}

nlohmann::json sanitizer_to_json(const SanitizerRecord& s) {
  nlohmann::json j = {{"tool", s.tool},     {"outcome", std::string(to_string(s.outcome))},
                      {"errors", s.errors}, {"report", s.report},
                      {"detail", s.detail}, {"run", step_to_json(s.step)}};
  if (s.baseline_too) j["baseline_too"] = true;
  return j;
}

SanitizerRecord sanitizer_from_json(const nlohmann::json& j) {
  SanitizerRecord s;
  s.tool = j.at("tool").get<std::string>();
  auto o = sanitizer_outcome_from_string(j.at("outcome").get<std::string>());
  if (!o) throw std::runtime_error("unknown sanitizer outcome " + j.at("outcome").dump());
  s.outcome = *o;
  s.errors = j.value("errors", 0);
  if (j.contains("report") && j["report"].is_array())
    for (const auto& line : j["report"]) s.report.push_back(line.get<std::string>());
  s.detail = j.value("detail", "");
  if (j.contains("run")) s.step = step_from_json(j["run"]);
  s.baseline_too = j.value("baseline_too", false);
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
  if (!g.repeats.empty()) {
    j["repeats"] = repeats_to_json(g.repeats);
    j["flaky"] = g.flaky();
  }
  if (!g.sanitizer.empty()) {
    j["sanitizer"] = nlohmann::json::array();
    for (const SanitizerRecord& s : g.sanitizer) j["sanitizer"].push_back(sanitizer_to_json(s));
  }
  return j;
}

GradedSolution graded_from_json(const nlohmann::json& j) {
  GradedSolution g;
  g.task_id = j.at("task_id").get<std::string>();
  g.sample = j.at("sample").get<int>();
  g.verdict = verdict_of(j);
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
  if (j.contains("repeats") && j["repeats"].is_array())
    for (const auto& r : j["repeats"]) g.repeats.push_back(repeat_from_json(r));
  if (j.contains("sanitizer") && j["sanitizer"].is_array())
    for (const auto& s : j["sanitizer"]) g.sanitizer.push_back(sanitizer_from_json(s));
  return g;
}

}  // namespace kjudge
