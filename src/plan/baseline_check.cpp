#include "plan/baseline_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include "core/read_file.h"
#include "core/sha256.h"
#include "eval/skip_rules.h"
#include "run/extra_libs.h"

namespace kjudge::plan {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Past this share of its limit the baseline is too close to it here.
constexpr double kCloseShare = 0.5;
constexpr double kHeadroom = 2.0;   // the scaled limit: this many times what the baseline took
constexpr double kMaxScale = 10.0;  // never more than this many times the problem's own limit

// The problem as its baseline is judged: what it runs and the files it runs on.
std::string problem_digest(const Problem& p) {
  json j = {{"task_id", p.task_id},
            {"type", p.type},
            {"build", p.build_command.value_or("")},
            {"test", p.test_command},
            {"timeout", p.timeout_or_default()}};
  for (const auto* files : {&p.context_files, &p.test_files, &p.baseline_solution->files})
    for (const SourceFile& f : *files) j["files"].push_back({f.path, sha256_hex(f.content)});
  return sha256_hex(j.dump());
}

bool decisive(Verdict v) { return v != Verdict::judge_error && v != Verdict::skipped; }

BaselineFinding finding_of(const Problem& p, const std::string& verdict, const std::string& detail,
                           double build_s, double test_s,
                           const std::vector<std::string>& sanitizer_errors) {
  BaselineFinding f;
  f.task_id = p.task_id;
  f.verdict = verdict;
  f.detail = detail;
  f.build_s = build_s;
  f.test_s = test_s;
  f.sanitizer_errors = sanitizer_errors;
  // Its plain test passed: what a sanitizer finds in it is the problem's, reported apart.
  f.fails = verdict != "pass" && verdict != "sanitizer_error";
  const double limit = p.timeout_or_default();
  const double need = std::max(build_s, test_s);
  if (!f.fails && need > kCloseShare * limit)
    f.scaled_timeout_s = std::min(kMaxScale * limit, std::max(limit, kHeadroom * need));
  return f;
}

}  // namespace

std::string environment_fingerprint(const MachineInfo& m, const EvalOptions& eval) {
  json j = {{"nvcc", m.nvcc_version_line},
            {"driver", m.driver_version},
            {"sandbox", eval.sandbox},
            {"memory_limit_bytes", eval.memory_limit_bytes},
            {"python_env", m.python_env ? m.python_env->root.string() + "\n" + m.python_env->stamp
                                        : std::string()}};
  for (const GpuInfo& g : m.gpus) j["gpus"].push_back(g.name + " " + g.compute_cap);
  if (const auto libs = find_extra_libs()) j["libs"] = libs->root.string() + "\n" + libs->stamp;
  return sha256_hex(j.dump()).substr(0, 24);
}

std::vector<BaselineFinding> check_baselines(const std::vector<const Problem*>& problems,
                                             const EvalOptions& eval, const MachineInfo& machine,
                                             bool progress, const RunInterrupts* interrupts) {
  const fs::path dir = eval.use_cache && !eval.cache_dir.empty()
                           ? eval.cache_dir / "baselines" / environment_fingerprint(machine, eval)
                           : fs::path();
  std::vector<BaselineFinding> out;
  std::vector<EvalJob> jobs;
  std::map<std::string, std::pair<const Problem*, std::string>> asked;  // task_id → digest
  for (const Problem* p : problems) {
    if (!p->baseline_solution || skip_reason(*p, machine)) continue;
    const std::string digest = problem_digest(*p);
    if (!dir.empty()) {
      try {
        const json j = json::parse(read_input_file(dir / (digest + ".json"), 1 << 20));
        const auto checked = j.value("sanitized", std::vector<std::string>{});
        const bool covers =
            std::all_of(eval.sanitize.begin(), eval.sanitize.end(), [&](const std::string& tool) {
              return std::count(checked.begin(), checked.end(), tool);
            });
        if (covers) {
          BaselineFinding f =
              finding_of(*p, j.at("verdict").get<std::string>(), j.value("detail", ""),
                         j.value("build_s", 0.0), j.value("test_s", 0.0),
                         j.value("sanitizer_errors", std::vector<std::string>{}));
          f.from_cache = true;
          out.push_back(std::move(f));
          continue;
        }
      } catch (const std::exception&) {
        // absent or unreadable: judged again
      }
    }
    Solution s = *p->baseline_solution;
    s.task_id = p->task_id;
    s.sample = 0;
    jobs.push_back({p, std::move(s)});
    asked[p->task_id] = {p, digest};
  }
  if (jobs.empty()) return out;
  if (progress)
    fmt::print(stderr, "kjudge: judging {} problems' own baselines on this machine first\n",
               jobs.size());
  EvalOptions eo = eval;
  eo.repeat = 1;
  eo.keep_workspaces = false;
  // The problem's limit is this machine's question here: a baseline that times out alone runs
  // once more with the most the limit may be scaled to, so that what it needs is known.
  eo.machine_limit_factor = kMaxScale;
  eo.baseline_sanitizer_errors.clear();
  if (!eo.work_root.empty()) eo.work_root = eo.work_root / "baselines";
  Evaluator ev(eo, machine);
  Evaluator* outer = nullptr;
  if (interrupts) {
    outer = interrupts->evaluator->exchange(&ev);
    if (interrupts->stop->load()) ev.request_stop();
  }
  std::mutex mu;
  ev.run(std::move(jobs), [&](const GradedSolution& g) {
    const auto it = asked.find(g.task_id);
    if (it == asked.end() || !decisive(g.verdict)) return;
    const Problem& p = *it->second.first;
    std::vector<std::string> flagged;
    for (const SanitizerRecord& rec : g.sanitizer)
      if (rec.outcome == SanitizerOutcome::errors) flagged.push_back(rec.tool);
    BaselineFinding f = finding_of(p, std::string(to_string(g.verdict)), g.detail, g.build.wall_s,
                                   g.test.wall_s, flagged);
    // Only what the machine can do is kept: a failure is judged again next time, so that one bad
    // moment of the machine never skips a problem's solutions for good.
    if (!dir.empty() && !f.fails) {
      std::error_code ec;
      fs::create_directories(dir, ec);
      try {
        write_json_atomically(dir / (it->second.second + ".json"),
                              json({{"task_id", g.task_id},
                                    {"verdict", f.verdict},
                                    {"detail", f.detail},
                                    {"build_s", f.build_s},
                                    {"test_s", f.test_s},
                                    {"sanitized", eo.sanitize},
                                    {"sanitizer_errors", f.sanitizer_errors}}));
      } catch (const std::exception&) {
        // an unwritable cache costs the next run this check again, nothing more
      }
    }
    std::lock_guard<std::mutex> lock(mu);
    out.push_back(std::move(f));
  });
  if (interrupts) interrupts->evaluator->store(outer);
  return out;
}

BaselineOutcome apply_baseline_findings(const std::vector<BaselineFinding>& findings,
                                        std::vector<Problem>& problems) {
  BaselineOutcome o;
  int scaled = 0;
  std::vector<std::string> flagged;
  for (const BaselineFinding& f : findings) {
    if (!f.fails && f.verdict == "pass" && f.test_s > 0) o.test_s[f.task_id] = f.test_s;
    if (!f.sanitizer_errors.empty()) {
      o.sanitizer_errors[f.task_id].insert(f.sanitizer_errors.begin(), f.sanitizer_errors.end());
      flagged.push_back(f.task_id);
    }
    if (!f.fails && f.scaled_timeout_s <= 0 && f.sanitizer_errors.empty()) continue;
    json entry = {{"task_id", f.task_id},
                  {"verdict", f.verdict},
                  {"detail", f.detail},
                  {"build_s", f.build_s},
                  {"test_s", f.test_s},
                  {"from_cache", f.from_cache},
                  {"scaled_timeout_s", f.scaled_timeout_s}};
    if (!f.sanitizer_errors.empty()) entry["sanitizer_errors"] = f.sanitizer_errors;
    o.report.push_back(std::move(entry));
    if (f.fails) {
      o.fails.insert(f.task_id);
      continue;
    }
    if (f.scaled_timeout_s <= 0) continue;
    for (Problem& p : problems)
      if (p.task_id == f.task_id) p.timeout_seconds = f.scaled_timeout_s;
    ++scaled;
  }
  if (!o.fails.empty())
    o.warnings.push_back(fmt::format(
        "{} problems' own baselines do not pass on this machine: their solutions were skipped "
        "(baseline_fails; run.json's \"baselines\" says why)",
        o.fails.size()));
  if (scaled)
    o.warnings.push_back(fmt::format(
        "{} problems' baselines needed more than half of their time limit here: the limit was "
        "scaled for their solutions (run.json's \"baselines\")",
        scaled));
  if (!flagged.empty()) {
    std::sort(flagged.begin(), flagged.end());
    std::string ids;
    for (std::size_t i = 0; i < flagged.size() && i < 20; ++i) ids += (i ? ", " : "") + flagged[i];
    if (flagged.size() > 20) ids += fmt::format(" and {} more", flagged.size() - 20);
    o.warnings.push_back(fmt::format(
        "compute-sanitizer finds errors in {} problems' own baselines ({}): the same tools' "
        "errors in their solutions are reported, not charged",
        flagged.size(), ids));
  }
  return o;
}

GradedSolution baseline_skip(const Problem& p, const Solution& s, const BaselineOutcome& o) {
  GradedSolution g;
  g.task_id = p.task_id;
  g.sample = s.sample;
  g.group = p.group;
  g.difficulty = p.difficulty;
  g.verdict = Verdict::skipped;
  g.skip_code = "baseline_fails";
  for (const auto& b : o.report)
    if (b["task_id"] == p.task_id)
      g.detail = fmt::format("the problem's own baseline does not pass on this machine ({}: {})",
                             b["verdict"].get<std::string>(), b["detail"].get<std::string>());
  return g;
}

}  // namespace kjudge::plan
