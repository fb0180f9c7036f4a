// The shards of a Slurm run merged into one run directory: results.jsonl (and with --benchmark
// perf.jsonl and perf-conditions.json) as a local run writes them, plus what the shards'
// summaries say about the machines they ran on.
#include "slurm/merge.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>

#include "eval/graded_json.h"
#include "perf/benchmarker.h"

namespace kjudge::slurm {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string joined(const std::set<std::string>& s) {
  std::string r;
  for (const auto& x : s) r += (r.empty() ? "" : "; ") + x;
  return r;
}

// --benchmark: the shards' perf journals, each key's first line (as for results), and a
// not_timed line for a passing solution whose shard was lost before timing it, so the summary
// accounts for every pass and nothing is timed on the submitter.
void merge_perf(const ShardArray& array, const std::vector<GradedSolution>& results,
                const fs::path& out) {
  std::set<SolutionKey> have;
  std::string text;
  auto add = [&](const json& j) {
    text += j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  };
  std::map<SolutionKey, std::size_t> shard_of;
  for (std::size_t i = 0; i < array.size(); ++i)
    for (const auto& k : array.keys(i)) shard_of[k] = i;
  json conditions = json::object(), warnings = json::array();
  for (std::size_t i = 0; i < array.size(); ++i) {
    std::set<SolutionKey> mine(array.keys(i).begin(), array.keys(i).end());
    for (const auto& j : read_perf_lines(array.shard_dir(i) / "perf.jsonl")) {
      SolutionKey k{j["task_id"].get<std::string>(), j.value("sample", 0)};
      if (mine.count(k) && have.insert(k).second) add(j);
    }
    // The nodes differ: each shard's GPUs are named with their shard.
    std::ifstream cin(array.shard_dir(i) / "perf-conditions.json");
    json c = json::parse(cin, nullptr, false);
    if (!c.is_discarded() && c.is_object()) {
      const json per_gpu = c.value("conditions", json::object());
      for (const auto& [gpu, v] : per_gpu.items())
        conditions[fmt::format("{} (shard {})", gpu, i)] = v;
      for (const auto& w : c.value("warnings", json::array()))
        if (std::find(warnings.begin(), warnings.end(), w) == warnings.end()) warnings.push_back(w);
    }
  }
  for (const auto& g : results) {
    if (g.verdict != Verdict::pass || have.count({g.task_id, g.sample})) continue;
    BenchResult r;
    r.task_id = g.task_id;
    r.sample = g.sample;
    r.group = g.group;
    auto s = shard_of.find({g.task_id, g.sample});
    r.not_timed = s == shard_of.end()
                      ? "judge: no Slurm shard timed it"
                      : fmt::format("judge: Slurm shard {} was lost ({}) before timing it",
                                    s->second, array.last_state(s->second));
    add(to_json(r));
  }
  write_file_atomically(out / "perf.jsonl", text);
  write_file_atomically(out / "perf-conditions.json", json({{"schema_version", 1},
                                                            {"kind", "kjudge-perf-conditions"},
                                                            {"conditions", conditions},
                                                            {"warnings", warnings}})
                                                          .dump(2));
}

}  // namespace

SlurmRunResult merge_shards(const ShardArray& array, const std::vector<PlannedJob>& jobs,
                            const MergeOptions& mo) {
  SlurmRunResult res;
  res.interrupted = mo.interrupted;
  std::map<SolutionKey, const PlannedJob*> by_key;
  for (const auto& j : jobs) by_key[j.key] = &j;
  // Each shard's journal, first record of a key wins (a shard resumes its own journal, so a
  // later line for the same key can only come from a task that ran twice at once).
  std::set<SolutionKey> have;
  std::set<std::string> sandbox, limits, guard, profiler, driver, cuda;
  for (std::size_t i = 0; i < array.size(); ++i) {
    std::set<SolutionKey> mine(array.keys(i).begin(), array.keys(i).end());
    for (auto& g : read_shard_journal(array.shard_dir(i) / "results.jsonl")) {
      SolutionKey k{g.task_id, g.sample};
      if (!mine.count(k) || !have.insert(k).second) continue;
      res.results.push_back(std::move(g));
    }
    std::ifstream in(array.shard_dir(i) / "summary.json");
    json s = json::parse(in, nullptr, false);
    if (s.is_discarded() || !s.is_object()) continue;
    if (s.contains("sandbox")) sandbox.insert(s["sandbox"].get<std::string>());
    if (s.contains("sandbox_limits")) limits.insert(s["sandbox_limits"].get<std::string>());
    if (s.contains("main_guard")) guard.insert(s["main_guard"].get<std::string>());
    for (auto b : s.value("broken_gpus", json::array())) {
      b["shard"] = i;
      res.broken_gpus.push_back(b);
    }
    for (const auto& w : s.value("warnings", json::array()))
      if (std::find(res.warnings.begin(), res.warnings.end(), w) == res.warnings.end())
        res.warnings.push_back(w);
    if (const json p = s.value("performance", json()); p.is_object()) {
      profiler.insert(p.value("profiler", std::string()));
      driver.insert(p.value("driver", std::string()));
      cuda.insert(p.value("cuda_version", std::string()));
    }
  }
  res.sandbox = joined(sandbox);
  res.sandbox_limits = joined(limits);
  res.main_guard = joined(guard);
  res.perf_env = {
      {"profiler", joined(profiler)}, {"driver", joined(driver)}, {"cuda_version", joined(cuda)}};

  int missing = 0;
  for (std::size_t i = 0; i < array.size(); ++i) {
    if (!array.given_up(i)) continue;
    for (const auto& k : array.keys(i)) {
      if (have.count(k)) continue;
      // The model is never charged for a lost node: judge_error, left out of pass@k.
      GradedSolution g;
      g.task_id = k.first;
      g.sample = k.second;
      if (auto it = by_key.find(k); it != by_key.end()) {
        g.group = it->second->group;
        g.difficulty = it->second->difficulty;
      }
      g.verdict = Verdict::judge_error;
      g.detail = fmt::format("Slurm shard {} was lost ({}) {} times; not graded", i,
                             array.last_state(i), array.attempts(i));
      have.insert(k);
      res.results.push_back(std::move(g));
      ++missing;
    }
  }
  if (missing)
    res.notes.push_back(fmt::format("{} jobs of lost Slurm shards are judge_error", missing));
  res.executor = {{"kind", "slurm"},
                  {"shards", array.size()},
                  {"resubmitted", array.resubmitted()},
                  {"submissions", array.submissions()},
                  {"plan", (mo.out / "slurm" / "plan.json").string()}};
  std::string text;
  for (const auto& g : res.results)
    text += graded_to_json(g).dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
  write_file_atomically(mo.out / "results.jsonl", text);
  if (mo.benchmark) merge_perf(array, res.results, mo.out);
  res.complete = !mo.interrupted && missing == 0 && have.size() == by_key.size();
  return res;
}

}  // namespace kjudge::slurm
