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
                           double build_s, double test_s) {
  BaselineFinding f;
  f.task_id = p.task_id;
  f.verdict = verdict;
  f.detail = detail;
  f.build_s = build_s;
  f.test_s = test_s;
  f.fails = verdict != "pass";
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
                                             bool progress) {
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
        BaselineFinding f =
            finding_of(*p, j.at("verdict").get<std::string>(), j.value("detail", ""),
                       j.value("build_s", 0.0), j.value("test_s", 0.0));
        f.from_cache = true;
        out.push_back(std::move(f));
        continue;
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
  eo.sanitize.clear();
  eo.keep_workspaces = false;
  if (!eo.work_root.empty()) eo.work_root = eo.work_root / "baselines";
  Evaluator ev(eo, machine);
  std::mutex mu;
  ev.run(std::move(jobs), [&](const GradedSolution& g) {
    const auto it = asked.find(g.task_id);
    if (it == asked.end() || !decisive(g.verdict)) return;
    const Problem& p = *it->second.first;
    BaselineFinding f =
        finding_of(p, std::string(to_string(g.verdict)), g.detail, g.build.wall_s, g.test.wall_s);
    if (!dir.empty()) {
      std::error_code ec;
      fs::create_directories(dir, ec);
      try {
        write_json_atomically(dir / (it->second.second + ".json"), json({{"task_id", g.task_id},
                                                                         {"verdict", f.verdict},
                                                                         {"detail", f.detail},
                                                                         {"build_s", f.build_s},
                                                                         {"test_s", f.test_s}}));
      } catch (const std::exception&) {
        // an unwritable cache costs the next run this check again, nothing more
      }
    }
    std::lock_guard<std::mutex> lock(mu);
    out.push_back(std::move(f));
  });
  return out;
}

}  // namespace kjudge::plan
