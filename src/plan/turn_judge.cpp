// The --turns judge (plan/turn_judge.h).
#include "plan/turn_judge.h"

namespace kjudge::plan {

TurnJudge::TurnJudge(EvalOptions options, MachineInfo machine)
    : evaluator_(std::move(options), std::move(machine)) {
  runner_ = std::thread([this] {
    evaluator_.run(feed_, [this](const GradedSolution& g) {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = waiting_.find({g.task_id, g.sample});
      if (it == waiting_.end()) return;
      it->second.set_value(g);
      waiting_.erase(it);
    });
  });
}

TurnJudge::~TurnJudge() {
  feed_.close();
  runner_.join();
}

GradedSolution TurnJudge::judge(const Problem& problem, Solution solution) {
  // Each turn is a job of its own: a sample number no real sample uses keeps them apart.
  solution.sample = 1000000 + next_++;
  std::future<GradedSolution> verdict;
  {
    std::lock_guard<std::mutex> lock(mu_);
    verdict = waiting_[{problem.task_id, solution.sample}].get_future();
  }
  feed_.push({&problem, std::move(solution)});
  return verdict.get();
}

}  // namespace kjudge::plan
