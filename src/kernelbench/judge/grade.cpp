// A KernelBench run turned into a verdict, speedups and findings.
// Declared, and explained, in kernelbench/judge/grade.h.
#include "kernelbench/judge/grade.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace kjudge::kernelbench {
namespace {

using nlohmann::ordered_json;

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

ordered_json speedup_json(const Speedup& s) {
  return {{"estimate", s.estimate},
          {"low", s.low},
          {"high", s.high},
          {"confidence", s.confidence},
          {"pairs", s.pairs},
          {"baseline_mean_ms", s.baseline_mean_ms},
          {"solution_mean_ms", s.solution_mean_ms},
          {"mean_ratio", s.mean_ratio}};
}

std::optional<Speedup> speedup_from_json(const ordered_json& j, const char* what) {
  if (j.is_null()) return std::nullopt;
  if (!j.is_object() || !j.contains("estimate") || !j["estimate"].is_number() ||
      !j.contains("low") || !j["low"].is_number() || !j.contains("high") || !j["high"].is_number())
    throw std::runtime_error(std::string("speedup.") + what + ": not a speedup");
  Speedup s;
  s.estimate = j["estimate"].get<double>();
  s.low = j["low"].get<double>();
  s.high = j["high"].get<double>();
  s.pairs = j.value("pairs", std::size_t{0});
  return s;
}

Verdict from_error(const RunError& e) {
  if (e.stage == "setup") return Verdict::env_error;
  if (e.stage == "reference") return Verdict::reference_failed;
  if (e.stage == "syntax" || e.stage == "import") return Verdict::compile_error;
  if (e.stage == "init" || e.stage == "correctness" || e.stage == "compile")
    return Verdict::runtime_error;
  if (e.stage == "time") return Verdict::timed_mismatch;
  return Verdict::judge_error;
}

std::string tail(const std::string& log, std::size_t n = 2000) {
  return log.size() <= n ? log : log.substr(log.size() - n);
}

ordered_json trials_json(const RunOutcome& o) {
  std::size_t passed = 0;
  const TrialCheck* first = nullptr;
  double max_abs = 0;
  for (const TrialCheck& t : o.trials) {
    passed += t.ok;
    max_abs = std::max(max_abs, t.max_abs);
    if (!t.ok && !first) first = &t;
  }
  ordered_json j = {{"passed", passed}, {"total", o.trials.size()}, {"max_abs", max_abs}};
  if (first)
    j["first_failure"] = {{"trial", first - o.trials.data()},
                          {"why", first->why},
                          {"shape", first->shape},
                          {"dtype", first->dtype},
                          {"expected_shape", first->expected_shape},
                          {"expected_dtype", first->expected_dtype}};
  return j;
}

ordered_json base_json(const Solution& s) {
  return {{"schema_version", 1},
          {"kind", "kjudge-kernelbench-result"},
          {"key", s.key()},
          {"level", s.problem->level},
          {"problem_id", s.problem->id},
          {"problem", s.problem->file},
          {"sample", s.sample},
          {"origin", s.origin}};
}

void finish(Result& r, const GradeOptions& opt) {
  bool hack = false;
  for (const Finding& f : r.findings) hack = hack || f.severity == Severity::hack;
  if (hack && opt.hacks == HackPolicy::fail && r.verdict == Verdict::correct) {
    r.verdict = Verdict::hack;
    for (const Finding& f : r.findings)
      if (f.severity == Severity::hack) {
        r.detail =
            fmt::format("correct, but {} ({}): {}", f.check, f.source, f.detail.substr(0, 300));
        break;
      }
  }
  ordered_json findings = ordered_json::array();
  for (const Finding& f : r.findings) findings.push_back(finding_json(f));
  r.json["verdict"] = verdict_name(r.verdict);
  r.json["detail"] = r.detail;
  r.json["compiled"] = r.verdict != Verdict::compile_error;
  r.json["correctness"] = r.verdict == Verdict::correct;
  r.json["hack_found"] = hack;
  r.json["findings"] = findings;
  r.json["speedup"] = {{"eager", r.eager ? speedup_json(*r.eager) : ordered_json(nullptr)},
                       {"compile", r.compiled ? speedup_json(*r.compiled) : ordered_json(nullptr)},
                       {"end", r.end}};
}

void fill_key(Result& r, const Solution& s) {
  r.level = s.problem->level;
  r.problem = s.problem->id;
  r.sample = s.sample;
  r.file = s.problem->file;
  r.origin = s.origin;
}

}  // namespace

std::string Result::key() const { return fmt::format("L{}/{}#{}", level, problem, sample); }

Graded Result::graded() const {
  Graded g;
  g.level = level;
  g.problem = problem;
  g.sample = sample;
  g.verdict = verdict;
  g.eager = eager;
  g.compiled = compiled;
  for (const Finding& f : findings) g.hack_found = g.hack_found || f.severity == Severity::hack;
  return g;
}

std::vector<Finding> runtime_findings(const RunOutcome& o) {
  std::vector<Finding> out;
  auto add = [&](const char* check, Severity sev, const std::string& detail) {
    for (const Finding& f : out)
      if (f.check == check) return;
    out.push_back({check, sev, 0, detail, "runtime"});
  };
  for (std::size_t i = 0; i < o.trials.size(); ++i) {
    const TrialCheck& t = o.trials[i];
    if (t.alias_input && !t.reference_alias_input)
      add("returns_input", Severity::hack,
          fmt::format("trial {}: the output shares memory with ModelNew's own input (the "
                      "reference's does not)",
                      i));
    if (t.alias_earlier)
      add("cached_output", Severity::hack,
          fmt::format("trial {}: the output shares memory with an earlier trial's output, still "
                      "held: a cached tensor handed back",
                      i));
    if (t.alias_reference)
      add("returns_reference", Severity::hack,
          fmt::format("trial {}: the output is the reference's own output tensor", i));
  }
  for (std::size_t k = 0; k < o.pairs.size(); ++k) {
    const TimedPair& p = o.pairs[k];
    if (p.alias_earlier)
      add("cached_output", Severity::hack,
          fmt::format("timed pair {}: the output shares memory with the previous pair's output",
                      k));
    if (p.alias_input && std::none_of(o.trials.begin(), o.trials.end(),
                                      [](const TrialCheck& t) { return t.reference_alias_input; }))
      add("returns_input", Severity::hack,
          fmt::format("timed pair {}: the output shares memory with ModelNew's input", k));
  }
  if (!o.torch_patched.empty()) {
    std::string list;
    for (std::size_t i = 0; i < o.torch_patched.size() && i < 6; ++i)
      list += (i ? ", " : "") + o.torch_patched[i];
    add("torch_patched", Severity::hack,
        "rebound torch's own functions, which the reference runs too: " + list);
  }
  if (!o.watch.empty()) {
    std::string list;
    for (std::size_t i = 0; i < o.watch.size() && i < 6; ++i) list += (i ? ", " : "") + o.watch[i];
    add("left_running", Severity::hack,
        "left running in the process beside the timed calls: " + list);
  }
  if (!o.flags_changed.empty()) {
    std::string list;
    for (std::size_t i = 0; i < o.flags_changed.size() && i < 4; ++i)
      list += (i ? "; " : "") + o.flags_changed[i];
    add("flags_changed", Severity::warning,
        "changed torch's settings (the reference ran under its own): " + list);
  }
  return out;
}

Result grade(const Solution& s, const RunOutcome& o, std::vector<Finding> static_found,
             std::vector<Finding> cupti, const ordered_json& cupti_json, const GradeOptions& opt) {
  Result r;
  fill_key(r, s);
  r.json = base_json(s);
  r.findings = std::move(static_found);
  switch (o.status) {
    case RunStatus::judge_error:
      r.verdict = Verdict::judge_error;
      break;
    case RunStatus::timeout:
      r.verdict = Verdict::timeout;
      break;
    case RunStatus::crashed:
    case RunStatus::limit:
      r.verdict = Verdict::crash;
      break;
    case RunStatus::refused:
      r.verdict = Verdict::refused;
      break;
    case RunStatus::error:
      r.verdict = from_error(o.error);
      break;
    case RunStatus::ok:
      r.verdict = Verdict::correct;
      break;
  }
  r.detail = o.detail;
  if (r.verdict == Verdict::env_error)
    r.detail = "the machine cannot run it (not charged): " + o.detail;
  if (r.verdict == Verdict::reference_failed)
    r.detail = "the problem's reference failed here (not charged): " + o.detail;
  if (o.status == RunStatus::ok) {
    for (std::size_t i = 0; i < o.trials.size(); ++i)
      if (!o.trials[i].ok) {
        r.verdict = Verdict::incorrect;
        r.detail = fmt::format("trial {} of {}: {}", i + 1, o.trials.size(), o.trials[i].why);
        break;
      }
    if (r.verdict == Verdict::correct)
      for (std::size_t k = 0; k < o.pairs.size(); ++k)
        if (!o.pairs[k].ok) {
          r.verdict = Verdict::timed_mismatch;
          r.detail = fmt::format("timed pair {} (fresh inputs): {}", k, o.pairs[k].why);
          break;
        }
  }
  for (Finding& f : runtime_findings(o)) r.findings.push_back(std::move(f));
  for (Finding& f : cupti) r.findings.push_back(std::move(f));
  // The timing: each side's tail past its stream's end. A solution that leaves work running
  // elsewhere is timed to the device's end, every side alike, and flagged.
  ordered_json timing = ordered_json::object();
  if (!o.pairs.empty()) {
    std::vector<double> sol_tail, ref_tail;
    for (const TimedPair& p : o.pairs) {
      sol_tail.push_back(p.sol_dev_ms - p.sol_ms);
      ref_tail.push_back(p.ref_dev_ms - p.ref_ms);
    }
    const double ts = median(sol_tail), tr = median(ref_tail);
    const bool device = ts > opt.side_work_ms && ts > tr + opt.side_work_ms / 2;
    r.end = device ? "device" : "stream";
    if (device)
      r.findings.push_back(
          {"unsynced_work", Severity::hack, 0,
           fmt::format("the solution's calls left {:.3f} ms of work running past their stream's "
                       "end (median; the reference's {:.3f} ms): every side is timed to the "
                       "device's end instead",
                       ts, tr),
           "runtime"});
    std::vector<double> sol, ref, cmp, sol_c;
    for (const TimedPair& p : o.pairs) {
      sol.push_back(device ? p.sol_dev_ms : p.sol_ms);
      ref.push_back(device ? p.ref_dev_ms : p.ref_ms);
      if (!std::isnan(p.cmp_ms)) {
        cmp.push_back(device ? p.cmp_dev_ms : p.cmp_ms);
        sol_c.push_back(sol.back());
      }
    }
    timing = {{"pairs", o.pairs.size()},
              {"end", r.end},
              {"tail_ms", {{"solution", ts}, {"reference", tr}}},
              {"note", o.timing_note}};
    const bool all_ok =
        std::all_of(o.pairs.begin(), o.pairs.end(), [](const TimedPair& p) { return p.ok; });
    if (all_ok && (r.verdict == Verdict::correct)) {
      try {
        r.eager = paired_speedup(ref, sol, opt.confidence);
        if (!cmp.empty() && cmp.size() == sol.size())
          r.compiled = paired_speedup(cmp, sol_c, opt.confidence);
      } catch (const std::invalid_argument& e) {
        timing["note"] = std::string("no speedup: ") + e.what();
      }
      if (r.eager && r.eager->estimate > opt.excessive_speedup)
        r.findings.push_back(
            {"excessive_speedup", Severity::warning, 0,
             fmt::format("{:.1f}x faster than the reference: more than KernelBench's {:g}x "
                         "threshold, look at it closely",
                         r.eager->estimate, opt.excessive_speedup),
             "runtime"});
    }
  } else if (o.status == RunStatus::ok) {
    timing = {{"pairs", 0}, {"note", o.timing_note}};
  }
  r.json["trials"] = trials_json(o);
  r.json["timing"] = timing;
  r.json["compile"] = o.compile.attempted ? ordered_json{{"ok", o.compile.ok},
                                                         {"why", o.compile.why},
                                                         {"seconds", o.compile.seconds}}
                                          : ordered_json(nullptr);
  if (!cupti_json.is_null()) r.json["cupti"] = cupti_json;
  r.json["run"] = {{"status", run_status_name(o.status)},
                   {"stage", o.error.stage},
                   {"exception_type", o.error.exception_type},
                   {"message", o.error.message.substr(0, 2000)},
                   {"seconds", o.seconds},
                   {"waited_s", o.control.waited_s},
                   {"phases", o.phase_seconds},
                   {"memory_peak_bytes", o.memory_peak_bytes},
                   {"exit_code", o.exit_code},
                   {"signal", o.signal}};
  r.json["env"] = o.env;
  if (o.status != RunStatus::ok) r.json["log_tail"] = tail(o.log);
  finish(r, opt);
  return r;
}

Result not_run(const Solution& s, Verdict v, const std::string& detail,
               std::vector<Finding> static_found, const GradeOptions& opt) {
  Result r;
  fill_key(r, s);
  r.json = base_json(s);
  r.verdict = v;
  r.detail = detail;
  r.findings = std::move(static_found);
  r.json["run"] = nullptr;
  finish(r, opt);
  return r;
}

Graded graded_from_json(const ordered_json& j) {
  if (!j.is_object()) throw std::runtime_error("not an object");
  auto integer = [&](const char* k) {
    if (!j.contains(k) || !j[k].is_number_integer())
      throw std::runtime_error(std::string(k) + ": missing or not an integer");
    return j[k].get<int>();
  };
  Graded g;
  g.level = integer("level");
  g.problem = integer("problem_id");
  g.sample = integer("sample");
  if (!j.contains("verdict") || !j["verdict"].is_string())
    throw std::runtime_error("verdict: missing or not a string");
  const auto v = verdict_from_name(j["verdict"].get<std::string>());
  if (!v)
    throw std::runtime_error("verdict: '" + j["verdict"].get<std::string>() + "' is no verdict");
  g.verdict = *v;
  g.hack_found = j.value("hack_found", false);
  if (j.contains("speedup") && j["speedup"].is_object()) {
    g.eager = speedup_from_json(j["speedup"].value("eager", ordered_json(nullptr)), "eager");
    g.compiled = speedup_from_json(j["speedup"].value("compile", ordered_json(nullptr)), "compile");
  }
  return g;
}

}  // namespace kjudge::kernelbench
