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
//                      board's secret seed, kept as a secret run. A `lang: py` task (GPU MODE's
//                      form) runs with kjudge's Python harness, as `kjudge task run` runs it;
//   kernelbench:NAME#L1/19  a KernelBench problem (issue 37): judged by `kjudge kernelbench
//                      eval`'s own run (kernelbench_job.h), correctness (judge) or correctness
//                      and speedups (benchmark).
#include <atomic>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "board/kernelbench_job.h"
#include "board/service_python.h"
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
  KernelBenchSets kernelbench;                         // name → KernelBench data folder
  // The interpreter of Python tasks and KernelBench (board/service_python.h); empty:
  // $KJUDGE_PYTHON, else python3. Asked at start only where there is such work.
  std::string python;
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
  // Why this instance takes no Python task or KernelBench jobs (its Python: no torch, torch
  // without a usable GPU), naming the interpreter; "" when it takes them or judges nothing.
  std::string python_refusal() const { return python_ ? python_->why() : ""; }
  bool is_python_task(const std::string& name) const { return python_tasks_.count(name) > 0; }
  // Why a board or a submission for task `name` is refused because it is a Python task this
  // instance's Python cannot run (refused_here's rule); "" otherwise.
  std::string python_task_refusal(const std::string& name) const {
    return is_python_task(name) ? refused_here(python_refusal(), "Python tasks") : "";
  }
  // The KernelBench problem a "kernelbench:NAME#REF" target names, and the target as stored
  // (kernelbench_target()); nullptr when none.
  const kernelbench::Problem* kernelbench_problem(const std::string& target,
                                                  std::string* stored = nullptr) const;
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
  void judge_kernelbench_job(const Job& job, const Submission& sub);
  // Records one run and ends its submission's job: the tail every judged job shares.
  void finish_job(const Job& job, const Submission& sub, std::int64_t t0, const std::string& mode,
                  const std::string& result, bool passed);
  int task_gpu_index() const { return machine_.gpus.empty() ? -1 : machine_.gpus.front().index; }
  // Targets this worker leaves in the queue now (Store::claim's `refused`).
  std::vector<std::string> refused_targets(bool tasks) const;
  // Why this instance refuses `what` at submission ("" when it takes it): on SQLite it is the
  // only judge, so work it cannot run would wait forever; PostgreSQL's other instances may run it.
  std::string refused_here(const std::string& why, const std::string& what) const;
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
  std::unique_ptr<TaskGpu> task_gpu_;      // only while judging
  std::unique_ptr<ServicePython> python_;  // only while judging Python tasks or KernelBench
  std::set<std::string> python_tasks_;     // the loaded tasks with lang: py
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
