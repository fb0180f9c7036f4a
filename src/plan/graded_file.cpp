// The ComputeEval graded-solutions file of a run (plan/graded_file.h).
#include "plan/graded_file.h"

#include <string>

#include "core/atomic_file.h"
#include "eval/computeeval_graded.h"
#include "perf/bench_stage.h"

namespace kjudge::plan {

namespace fs = std::filesystem;

fs::path write_graded_solutions_file(const RunPlan& plan,
                                     const std::vector<GradedSolution>& results,
                                     const SolutionFiles* solutions) {
  std::map<std::string, const Problem*> problems;
  for (const auto& p : plan.problems) problems[p.task_id] = &p;
  std::map<std::pair<std::string, int>, nlohmann::json> perf;
  if (fs::exists(plan.out / "perf.jsonl")) perf = read_perf_journal(plan.out / "perf.jsonl");

  std::string text;
  for (const auto& g : results) {
    auto p = problems.find(g.task_id);
    if (p == problems.end()) continue;
    const std::pair<std::string, int> key{g.task_id, g.sample};
    const Solution* solution = nullptr;
    if (solutions) {
      auto s = solutions->find(key);
      if (s != solutions->end()) solution = &s->second;
    }
    std::optional<ComputeEvalTiming> timing;
    if (auto t = perf.find(key); t != perf.end()) timing = computeeval_timing(t->second);
    text += computeeval_graded_json(g, *p->second, solution, plan.datapack_name,
                                    timing ? &*timing : nullptr)
                .dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    text += '\n';
  }
  const fs::path path = plan.out / computeeval_graded_file_name(plan.datapack_name);
  write_file_atomically(path, text);
  return path;
}

}  // namespace kjudge::plan
