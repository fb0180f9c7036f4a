#include "board/pack_timing.h"

#include <filesystem>
#include <fstream>

#include "core/private_dir.h"
#include "perf/bench_stage.h"

namespace kjudge::board {

namespace fs = std::filesystem;

PackTiming time_pack_solution(const Problem& problem, const Solution& solution,
                              const GradedSolution& graded, const EvalOptions& eval,
                              const BenchOptions& bench, const MachineInfo& machine,
                              const std::atomic<bool>* stop) {
  // The stage journals into a run folder; a fresh one per solution, so nothing is "resumed".
  PrivateDir run_dir = PrivateDir::try_make(fs::temp_directory_path(), "kjudge-serve-bench-");
  PackTiming out;
  if (run_dir.path().empty()) {
    out.not_timed = "judge: no folder could be made under " + fs::temp_directory_path().string();
    return out;
  }
  const fs::path& dir = run_dir.path();
  const std::vector<Problem> problems = {problem};
  const std::map<std::pair<std::string, int>, Solution> solutions = {
      {{solution.task_id, solution.sample}, solution}};
  const std::vector<GradedSolution> results = {graded};
  BenchStageInput in;
  in.problems = &problems;
  in.solutions = &solutions;
  in.results = &results;
  in.eval = eval;
  in.eval.keep_workspaces = false;
  in.bench = bench;
  in.machine = machine;
  in.run_dir = dir;
  in.progress = false;
  in.stop = stop;
  try {
    run_bench_stage(in);
    std::ifstream journal(dir / "perf.jsonl");
    std::string line;
    while (std::getline(journal, line)) {
      auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_object()) out.perf = j;
    }
  } catch (const std::exception& e) {
    out.not_timed = std::string("judge: the benchmark stage failed: ") + e.what();
  }
  run_dir.remove();
  if (out.perf.is_object() && out.perf.value("timed", false) && out.perf["solution"].is_object())
    out.score = out.perf["solution"].value("median_ms", 0.0) * 1000.0;
  else if (out.not_timed.empty())
    out.not_timed = out.perf.is_object() ? out.perf.value("not_timed", std::string("not timed"))
                                         : "not timed (interrupted)";
  return out;
}

void add_timing_flags(nlohmann::json& result, const nlohmann::json& perf) {
  if (!perf.is_object()) return;
  const auto f = perf.find("cheat_flags");
  if (f == perf.end() || !f->is_array() || f->empty()) return;
  if (!result.contains("cheat_flags") || !result["cheat_flags"].is_array())
    result["cheat_flags"] = nlohmann::json::array();
  for (const auto& flag : *f) result["cheat_flags"].push_back(flag);
}

}  // namespace kjudge::board
