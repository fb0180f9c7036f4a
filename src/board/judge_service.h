#pragma once
// The service's GPU workers, in the service's own process: they take jobs from the store's
// queue (store.h) and judge them, writing each result back as a run.
//   pack:NAME#TASK_ID  a ComputeEval problem of a pack the service loaded: graded by one
//                      long-lived Evaluator (the same scheduling, sandbox and GPU slots as
//                      `kjudge evaluate`); the submission's code is its files as JSON;
//                      on a pack board, a `leaderboard` submission that passes is then timed
//                      against the baseline (pack_timing.h) in a ranked run scored by its median;
//                      off a board, `benchmark` mode times it the same way, unranked;
//   task:NAME          a task folder (issue 6): built and run in the submission's mode, on a GPU
//                      held alone; a leaderboard submission also gets a ranked run on the
//                      board's secret seed, kept as a secret run.
#include <atomic>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "board/store.h"
#include "board/task_gpu.h"
#include "core/problem.h"
#include "core/task_spec.h"
#include "eval/evaluator.h"
#include "eval/graded.h"
#include "eval/step_runner.h"
#include "perf/benchmarker.h"
#include "run/machine.h"

namespace kjudge::board {

struct JudgeServiceOptions {
  std::map<std::string, std::vector<Problem>> packs;   // name → problems
  std::map<std::string, std::filesystem::path> tasks;  // name → task folder
  EvalOptions eval;
  StepSettings step;                 // task builds and runs
  std::string worker_id = "worker";  // jobs claimed are marked "<worker_id>/<n>"
  int max_in_flight = 8;             // pack jobs handed to the evaluator at once
  bool process = true;               // false: accept and queue, judge nothing (tests, drains)
  std::string gpu_type;              // the GPU type runs are ranked under
  // Caps on a task benchmark's timed calls (0: the harness's defaults), so an operator can bound
  // the GPU time one submission takes.
  double task_max_time = 0;
  int task_max_runs = 0;
  // Task submissions run isolated (as `task run` does by default, docs/tasks.md): the
  // submission in a process of its own, apart from the harness that checks it and writes its
  // report. True unless `kjudge serve --no-isolate`: a service ranks strangers' code.
  bool task_isolate = true;
  BenchOptions bench;  // how a pack board's ranked runs are timed
  // A worker's signal handler sets it when the worker is going away (scancel, the end of a
  // Slurm job's time): from then on nothing is recorded, as after abandon(). Slurm signals the
  // worker's sandboxed steps too, and one that dies of it must not be graded before the worker
  // gets to call abandon().
  const std::atomic<bool>* stopping = nullptr;
};

class JudgeService {
 public:
  JudgeService(Store& store, JudgeServiceOptions options, MachineInfo machine);
  ~JudgeService();  // stops: jobs in progress are left running, requeued at the next start
  void stop();
  // Stops as a worker that will not come back under its id (a Slurm job cancelled or out of
  // time): what is in flight is dropped, not recorded (its processes are being killed with
  // this one, so a verdict now would be the machine's, not the code's), and this worker's
  // running jobs go back to the queue for the other workers. Returns how many.
  int abandon();

  // Whether `target` names something this service can judge ("" when it can; else why not).
  std::string check_target(const std::string& target) const;
  // The pack problem a "pack:NAME#TASK_ID" target names; nullptr when none is loaded.
  const Problem* pack_problem(const std::string& target) const;
  // The one file a pack problem's solution is (its baseline's file), so a single code box or
  // `"code"` can be named; "" when the problem's solution has several files (or none to copy).
  static std::string solution_file_name(const Problem& problem);
  const JudgeServiceOptions& options() const { return opt_; }
  // Why this instance takes no task jobs (no usable GPU: board/task_gpu.h); "" when it does, or
  // before its GPU was asked.
  std::string task_refusal() const { return task_gpu_ ? task_gpu_->why() : ""; }
  std::int64_t judged() const { return judged_.load(); }
  // Called (on a worker's thread) each time a submission has finished and its status is
  // stored; nullptr: none. The API wakes its long polls with it.
  void on_finished(std::function<void()> hook);
  // Something was just queued: an idle worker asks the queue now rather than after its pause.
  void poke();

 private:
  void dispatch_loop();
  // False when the machine, not the submission, failed it (its GPU is unusable, or /tmp took no
  // workspace): the job went
  // back to the queue and this worker takes no task job until its GPU answers again.
  bool judge_task(const Job& job, const Submission& sub);
  struct Pending {
    std::int64_t job_id = 0, submission_id = 0;
    const Problem* problem = nullptr;
    Solution solution;
    std::string mode;        // the correctness run's: judge (no board) or test (a board's)
    bool timed = false;      // timed after its tests (a board's leaderboard run, or benchmark mode)
    std::string timed_mode;  // the timed run's mode: leaderboard (a board's) or benchmark
  };
  void record_pack_result(const Pending& p, const GradedSolution& g);
  void bench_loop();
  void finish_pack(const Pending& p);
  void announce_finished();

  Store& store_;
  JudgeServiceOptions opt_;
  MachineInfo machine_;
  std::unique_ptr<Evaluator> evaluator_;
  std::unique_ptr<TaskGpu> task_gpu_;  // only while judging
  JobFeed feed_;
  std::thread eval_thread_, dispatch_thread_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> abandon_{false};  // abandon(): record nothing more
  bool dropping() const { return abandon_.load() || (opt_.stopping && opt_.stopping->load()); }
  bool stopping_soon() const;  // dropping() within a second
  std::atomic<int> in_flight_{0};
  // Passing pack-board solutions queued for timing or being timed (they count in in_flight_).
  // While any wait, no new job is taken, so the timing gets the GPU alone once the jobs still
  // being graded are done.
  std::atomic<int> timing_{0};
  std::atomic<std::int64_t> judged_{0};
  std::mutex mu_;
  std::map<int, Pending> pending_;  // by sample
  int next_sample_ = 0;
  // Ranked runs wait here for the timing thread, so the evaluator's callback never blocks on a
  // benchmark.
  std::thread bench_thread_;
  std::deque<std::pair<Pending, GradedSolution>> to_time_;
  std::condition_variable to_time_cv_;
  // poke(): the idle dispatcher's pause ends early (the queue is still asked every 20 ms, for
  // jobs another instance queued).
  std::mutex poke_mu_;
  std::condition_variable poke_cv_;
  bool poked_ = false;
  std::mutex hook_mu_;  // held while the hook runs, so on_finished(nullptr) waits it out
  std::function<void()> finished_hook_;
};

}  // namespace kjudge::board
