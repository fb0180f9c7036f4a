#include "perf/bench_stage.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <unistd.h>

#include <fstream>
#include <set>

#include "core/atomic_file.h"
#include "perf/perf_summary.h"
#include "run/cloexec_file.h"

namespace kjudge {

namespace fs = std::filesystem;

namespace {

using Key = std::pair<std::string, int>;

void append_line(const fs::path& path, const nlohmann::json& j) {
  append_line_cloexec(path,
                      j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

PerfOutcome outcome_of(const nlohmann::json& j, const std::string& group) {
  PerfOutcome o;
  o.task_id = j["task_id"].get<std::string>();
  o.sample = j.value("sample", 0);
  o.group = group;
  o.correct = true;
  if (j.contains("speedup") && j["speedup"].is_object()) {
    RatioInterval r;
    r.estimate = j["speedup"].value("estimate", 0.0);
    r.low = j["speedup"].value("low", 0.0);
    r.high = j["speedup"].value("high", 0.0);
    r.confidence = j["speedup"].value("confidence", 0.95);
    o.speedup = r;
  } else {
    o.not_timed = j.value("not_timed", std::string("not timed"));
  }
  return o;
}

}  // namespace

std::map<std::pair<std::string, int>, nlohmann::json> read_perf_journal(const fs::path& path) {
  std::map<Key, nlohmann::json> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("task_id")) continue;
    out[{j["task_id"].get<std::string>(), j.value("sample", 0)}] = j;
  }
  return out;
}

nlohmann::json run_bench_stage(const BenchStageInput& in) {
  const fs::path journal = in.run_dir / "perf.jsonl";
  std::map<Key, nlohmann::json> done = read_perf_journal(journal);
  std::map<std::string, const Problem*> by_id;
  for (const auto& p : *in.problems) by_id[p.task_id] = &p;

  auto record = [&](const nlohmann::json& j) {
    if (in.keep_line && !in.keep_line(j)) return;
    append_line(journal, j);
    done[{j["task_id"].get<std::string>(), j.value("sample", 0)}] = j;
  };
  // The same keys as a timed line (to_json(BenchResult)), so readers need no special case.
  auto not_timed = [&](const GradedSolution& g, const std::string& why) {
    BenchResult r;
    r.task_id = g.task_id;
    r.sample = g.sample;
    r.group = g.group;
    r.not_timed = why;
    record(to_json(r));
  };

  // What to time: passing solutions not yet in the perf journal.
  std::map<std::string, std::vector<int>> todo;  // task → samples
  for (const auto& g : *in.results) {
    if (g.verdict != Verdict::pass || done.count({g.task_id, g.sample})) continue;
    const Problem* p = by_id.count(g.task_id) ? by_id[g.task_id] : nullptr;
    if (!p) continue;
    if (std::string why = bench_unavailable(*p, in.bench.profiler); !why.empty()) {
      not_timed(g, why);
    } else if (!p->baseline_solution) {
      not_timed(g, "the problem ships no baseline solution to compare with");
    } else if (!in.solutions->count({g.task_id, g.sample})) {
      not_timed(g, "judge: the solution's files are not at hand");
    } else {
      todo[g.task_id].push_back(g.sample);
    }
  }

  if (!todo.empty()) {
    // Rebuild (from the cache) every solution to time and each problem's baseline; the
    // baseline's test runs again, since a baseline that fails here times nothing.
    constexpr int kBaselineSample = -1;
    std::vector<EvalJob> jobs;
    for (const auto& [task, samples] : todo) {
      const Problem* p = by_id[task];
      Solution base = *p->baseline_solution;
      base.task_id = task;
      base.sample = kBaselineSample;
      jobs.push_back({p, std::move(base), /*build_only=*/false, /*keep_workspace=*/true});
      for (int s : samples)
        jobs.push_back({p, in.solutions->at({task, s}), /*build_only=*/true,
                        /*keep_workspace=*/true});
    }
    if (in.progress)
      fmt::print(stderr, "kjudge: benchmark stage: rebuilding {} solutions and baselines\n",
                 jobs.size());
    std::map<Key, GradedSolution> prepared;
    {
      EvalOptions eo = in.eval;
      Evaluator ev(eo, in.machine);
      ev.run(std::move(jobs), [&](const GradedSolution& g) {
        prepared[{g.task_id, g.sample}] = g;
      });
    }

    std::vector<BenchPair> pairs;
    std::vector<GradedSolution> graded_of_pair;
    for (const auto& [task, samples] : todo) {
      const GradedSolution& base = prepared[{task, kBaselineSample}];
      std::string base_problem;
      if (base.verdict != Verdict::pass)
        base_problem = "the baseline solution does not pass here (" +
                       std::string(to_string(base.verdict)) + ": " + base.detail + ")";
      for (int s : samples) {
        const GradedSolution& sol = prepared[{task, s}];
        GradedSolution g;
        g.task_id = task;
        g.sample = s;
        g.group = by_id[task]->group;
        if (sol.verdict != Verdict::pass || sol.workspace.empty()) {
          not_timed(g, "could not rebuild the solution for timing (" +
                           std::string(to_string(sol.verdict)) + ": " + sol.detail + ")");
          continue;
        }
        pairs.push_back({by_id[task], s, sol.workspace, base.workspace, base_problem});
      }
    }

    if (in.progress)
      fmt::print(stderr,
                 "kjudge: benchmark stage: timing {} solutions against their baselines "
                 "({} runs each side, {} warm-up)\n",
                 pairs.size(), in.bench.runs, in.bench.warmups);
    BenchOptions bo = in.bench;
    bo.stop = in.stop;
    Benchmarker bench(bo, in.machine);
    std::size_t finished = 0;
    bench.run(pairs, [&](const BenchResult& r) {
      nlohmann::json j = to_json(r);
      record(j);
      ++finished;
      if (in.progress) {
        std::string what = r.speedup
                               ? fmt::format("speedup {:.3f} [{:.3f}, {:.3f}]", r.speedup->estimate,
                                             r.speedup->low, r.speedup->high)
                               : "not timed: " + r.not_timed;
        fmt::print(stderr, "  [{}/{}] {} #{}: {}\n", finished, pairs.size(), r.task_id, r.sample,
                   what);
      }
    });
    if (!in.eval.keep_workspaces) {
      std::error_code ec;
      for (const auto& [key, g] : prepared)
        if (!g.workspace.empty()) fs::remove_all(g.workspace, ec);
    }
    nlohmann::json perf_conditions = bench.conditions();
    std::vector<std::string> warnings = bench.warnings();
    // Kept beside the journal: the conditions of the last timing pass.
    write_json_atomically(in.run_dir / "perf-conditions.json",
                          nlohmann::json({{"schema_version", 1},
                                          {"kind", "kjudge-perf-conditions"},
                                          {"conditions", perf_conditions},
                                          {"warnings", warnings}}));
  }

  // The summary covers every judged solution: the incorrect ones count against fast_p.
  std::vector<PerfOutcome> outcomes;
  for (const auto& g : *in.results) {
    if (g.verdict == Verdict::skipped) continue;
    auto it = done.find({g.task_id, g.sample});
    if (g.verdict == Verdict::pass && it != done.end()) {
      outcomes.push_back(outcome_of(it->second, g.group));
    } else {
      PerfOutcome o;
      o.task_id = g.task_id;
      o.sample = g.sample;
      o.group = g.group;
      o.correct = g.verdict == Verdict::pass;
      if (o.correct) o.not_timed = "not timed (interrupted)";
      outcomes.push_back(o);
    }
  }
  nlohmann::json perf = summarize_perf(outcomes);
  // The comparisons with a run-time flag (perf.jsonl's cheat_flags): for a person to look at.
  nlohmann::json flagged = nlohmann::json::array();
  for (const auto& [key, line] : done) {
    if (!line.contains("cheat_flags") || !line["cheat_flags"].is_array()) continue;
    nlohmann::json checks = nlohmann::json::array();
    for (const auto& f : line["cheat_flags"])
      if (f.is_object() && f.contains("check")) checks.push_back(f["check"]);
    flagged.push_back({{"task_id", key.first}, {"sample", key.second}, {"checks", checks}});
  }
  perf["flagged"] = std::move(flagged);
  perf["runs"] = in.bench.runs;
  perf["warmups"] = in.bench.warmups;
  perf["confidence"] = in.bench.confidence;
  perf["profiler"] = in.bench.profiler.string();
  perf["cuda_version"] = in.machine.cuda_version.value_or("");
  perf["driver"] = in.machine.driver_version;
  perf["journal"] = journal.string();
  std::ifstream cond_in(in.run_dir / "perf-conditions.json");
  auto cond = nlohmann::json::parse(cond_in, nullptr, false);
  if (!cond.is_discarded()) {
    perf["conditions"] = cond.value("conditions", nlohmann::json::object());
    perf["warnings"] = cond.value("warnings", nlohmann::json::array());
  }
  return perf;
}

}  // namespace kjudge
