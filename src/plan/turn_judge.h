#pragma once
// The judge behind `--turns`: each answer of a turn is built and tested as soon as it arrives,
// by one evaluator fed from many generation threads (Evaluator::run(JobFeed&)), so the machine's
// build pool and GPU slots bound the work whatever the number of requests in flight.
#include <atomic>
#include <future>
#include <map>
#include <mutex>
#include <thread>

#include "eval/evaluator.h"

namespace kjudge::plan {

class TurnJudge {
 public:
  TurnJudge(EvalOptions options, MachineInfo machine);
  ~TurnJudge();  // waits for what is in flight
  TurnJudge(const TurnJudge&) = delete;
  TurnJudge& operator=(const TurnJudge&) = delete;

  // Blocks until the verdict is in; thread-safe.
  GradedSolution judge(const Problem& problem, Solution solution);

 private:
  Evaluator evaluator_;
  JobFeed feed_;
  std::thread runner_;
  std::mutex mu_;
  std::map<std::pair<std::string, int>, std::promise<GradedSolution>> waiting_;
  std::atomic<int> next_{0};
};

}  // namespace kjudge::plan
