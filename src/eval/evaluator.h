#pragma once
// The grading pipeline for a set of (problem, solution) jobs on this machine:
//
//   check (skip rules, paths, source references) → workspace → build (CPU pool, cache)
//     → test (GPU slots) → verdict
//
// Builds run on all cores and hold no GPU; tests run in slots, `tests_per_gpu` per GPU, each
// with CUDA_VISIBLE_DEVICES naming its GPU. Jobs start in the order of schedule.h (cheap builds
// with long tests first, then the longest builds first). A timeout
// that expired while other steps were running is not trusted: the job is run again at the end,
// alone on a quiet machine, before the timeout becomes a verdict. Faults of the judge or the
// machine (judge_error) are retried and never charged to the model.
#include <atomic>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/problem.h"
#include "eval/gpu_share.h"
#include "eval/graded.h"
#include "eval/solution_rules.h"
#include "eval/step_runner.h"
#include "run/machine.h"
#include "run/process.h"

namespace kjudge {

class BuildCache;
class CostModel;

struct EvalOptions {
  int build_workers = 0;  // 0: one per CPU
  int tests_per_gpu = 4;
  int host_test_slots = 0;  // slots when the machine has no GPU; 0: one per CPU
  std::vector<int> gpus;    // GPU indices to use; empty: all of the machine's
  bool use_cache = true;
  std::filesystem::path cache_dir;  // holds builds/ and timings.json
  std::filesystem::path work_root;  // workspaces are created (and removed) under it
  bool keep_workspaces = false;
  std::size_t log_cap = 16 * 1024;
  int judge_error_retries = 2;
  bool quiet_retry = true;
  // Builds and tests run inside bubblewrap (src/run/sandbox.h). Off here so that library users
  // opt in; the kjudge command line turns it on unless --sandbox none.
  bool sandbox = false;
  std::filesystem::path bwrap = "bwrap";
  // Memory of one sandboxed step (build or test, all its processes); 0: no limit. See
  // SandboxPolicy::memory_bytes for how it is enforced.
  std::uint64_t memory_limit_bytes = 8ull << 30;
  // After a test that may have left its GPU unwell (timeout, signal, sticky CUDA error), a probe
  // (run/gpu_probe.h) must pass on that GPU before it takes new work; a GPU that fails it three
  // times is taken out of the pool. The command overrides the built-in probe (tests use it).
  bool gpu_probe = true;
  std::string gpu_probe_command;
  // libkjudge_main_guard.so (run/main_return.h): a test run passes only when the program's
  // main() returned. nullopt: locate_main_guard(); an empty path: no guard.
  std::optional<std::filesystem::path> main_guard;
  // What one solution may bring (eval/solution_rules.h); beyond it, invalid_solution.
  SolutionLimits solution_limits;
  // "Luck does not pass" (issue 34). Every test runs `repeat` times in its workspace; the
  // solution passes only if every run passes, and otherwise takes the first failing run's
  // verdict (GradedSolution::repeats keeps each run's; a solution whose runs disagree is flaky).
  int repeat = 1;
  // compute-sanitizer tools (eval/sanitizer.h) a passing test runs under once more, each in
  // turn; empty: none. Errors it reports: sanitizer_error. A run it cannot judge (no sanitizer,
  // a timeout, its own failure): judge_error, not retried. Each run may take
  // `sanitize_timeout_factor` times the problem's timeout.
  std::vector<std::string> sanitize;
  double sanitize_timeout_factor = 10;
  // The compute-sanitizer binary. nullopt: locate_compute_sanitizer() beside the machine's nvcc;
  // an empty path: none (every check is then a judge_error).
  std::optional<std::filesystem::path> sanitizer;
  // Where a problem's own limits are the machine's question, not a verdict (issue 34: the
  // baseline check, and validate): > 1 lets a build or test that timed out alone on the machine
  // run once more with this many times its limit (a quiet retry, alone by design, starts
  // there). Needing more than the problem's limit is recorded in the step's extended_limit_s;
  // the verdict is what that run gives. Never set for a model's solutions:
  // they run under the limit the baseline check found for this machine.
  double machine_limit_factor = 0;
  // A build on a loaded machine (other steps running beside it) that reaches its limit on the
  // wall clock with less than that limit of CPU time used was kept from the cores, not slow:
  // it goes on while its CPU time stays under the limit, up to this many times the limit of
  // wall time (ProcessSpec::starved_wall_cap_s), instead of going to the quiet retry (a
  // compile is CPU work: alone, its wall time is about its CPU time). A build that was alone
  // all along gets no such grace. <= 1: the wall clock alone decides.
  double starved_build_factor = 3;
  // The compute-sanitizer tools each problem's own baseline has errors under on this machine
  // (the baseline check): the same tools' errors in a solution are reported, not charged.
  std::map<std::string, std::set<std::string>> baseline_sanitizer_errors;
  // Whether a test's timeout on a loaded machine could be the machine's fault is decided from
  // evidence (issue 35), where the sandbox's cgroup keeps pressure (PSI): the time the machine
  // kept the test waiting (CPU, memory, I/O) and the GPU time other tests on its GPU took are
  // its lost time, the rest its clear time. Past its limit, a test goes on while its time clear
  // of its GPU neighbours is under the limit (the pressure part a solution can raise itself, so
  // it only ever sends a timeout to the quiet retry), up to `stall_test_factor` times the limit
  // of wall time; its timeout is
  // its own when its clear time reached the limit, or reached `hang_baseline_factor` times the
  // problem's baseline test time on this machine (`baseline_test_s`, from the baseline check)
  // and `hang_limit_share` of the limit: then no quiet retry. Only the rest go to the quiet
  // retry. false (--strict-timeouts): every timeout under load goes to the quiet retry.
  bool timeout_evidence = true;
  double stall_test_factor = 2;
  double hang_baseline_factor = 10;
  double hang_limit_share = 0.05;
  // A test still running past `suspect_after_baseline` times its problem's baseline test time
  // (at least `suspect_min_s`; `suspect_unknown_s` where the baseline's is not known) is likely
  // endless: it gives its slot back, so that up to `suspects_per_gpu` such tests beside the
  // `tests_per_gpu` others keep the queue moving instead of holding every slot for a whole limit
  // (issue 35: twelve endless kernels of 60-120 s kept a 4-slot GPU from every other test).
  // Its own time lost to its neighbours is counted as any test's (GpuShareClock).
  int suspects_per_gpu = 8;
  double suspect_after_baseline = 10;
  double suspect_min_s = 5;
  double suspect_unknown_s = 30;
  std::map<std::string, double> baseline_test_s;
};

struct EvalJob {
  const Problem* problem = nullptr;
  Solution solution;
  bool build_only = false;      // stop after a successful build (verdict pass, test not run)
  bool keep_workspace = false;  // keep it when the job passes (GradedSolution::workspace)
};

// Jobs that arrive over time, e.g. answers graded as a model writes them (kjudge run).
class JobFeed {
 public:
  void push(EvalJob job);  // thread-safe
  void close();            // no more jobs will come
  // Waits for the next job; nullopt once closed and drained.
  std::optional<EvalJob> pop();

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<EvalJob> jobs_;
  bool closed_ = false;
};

class Evaluator {
 public:
  Evaluator(EvalOptions options, MachineInfo machine);
  ~Evaluator();

  // Grades every job. `done` is called once per job, from one thread at a time, as soon as
  // the job's verdict is final.
  void run(std::vector<EvalJob> jobs, const std::function<void(const GradedSolution&)>& done);
  // The same for jobs that arrive over time: returns once `feed` is closed and every job it
  // gave is graded. Jobs start in arrival order.
  void run(JobFeed& feed, const std::function<void(const GradedSolution&)>& done);

  // Stop starting new work; steps in flight finish. Safe from a signal handler.
  void request_stop() { stop_.store(true); }
  bool stopped() const { return stop_.load(); }

  // GPUs taken out of the pool during the last run(), with why.
  std::map<int, std::string> broken_gpus() const { return broken_; }

  // Where the last run()'s time went (summary.json timing.phases): the concurrent phase, the
  // quiet retries after it and how many ran side by side, and the time built jobs waited for a
  // test slot, summed.
  struct PhaseTimes {
    double main_s = 0;
    double quiet_s = 0;
    int quiet_retries = 0;
    int quiet_width = 0;
    int quiet_alone = 0;  // side-by-side retries that timed out and went once more, alone
    int suspects = 0;     // tests that gave their GPU slot back (EvalOptions::suspects_per_gpu)
    double test_wait_s_sum = 0;
  };
  PhaseTimes phase_times() const { return phases_; }

  // EvalOptions::baseline_sanitizer_errors, known only once the baseline check has ended (kjudge
  // run constructs its evaluator while the model answers). Before run() only.
  void set_baseline_sanitizer_errors(std::map<std::string, std::set<std::string>> errors) {
    opt_.baseline_sanitizer_errors = std::move(errors);
  }
  // EvalOptions::baseline_test_s, likewise.
  void set_baseline_test_times(std::map<std::string, double> seconds) {
    opt_.baseline_test_s = std::move(seconds);
  }

  // What goes into every build-cache key besides the workspace and the command.
  const std::string& build_environment() const { return build_env_; }

 private:
  struct State;
  struct Task;

  std::unique_ptr<Task> make_task(EvalJob&& job) const;
  // The run itself: the worker threads (and the feed's, if any), then the quiet retries.
  void execute(State& st, JobFeed* feed);
  // The quiet retries, after the run's other work (Task::needs_quiet).
  void run_quiet(State& st, const std::vector<int>& gpus);
  void build_worker(State& st);
  void test_worker(State& st, int gpu);
  // Runs the pre-checks and the build of `t`; returns false when the job is final already.
  bool check_and_build(Task& t, bool quiet);
  // The test step: `repeat` runs of the test, then, after a pass, the --sanitize checks.
  void run_test(Task& t, int gpu, bool quiet);
  // One run of the test (the verdict it gives in t.g).
  void test_once(Task& t, int gpu, bool quiet);
  // The passing test under each --sanitize tool; the verdict changes when one finds errors
  // (sanitizer_error) or cannot judge (judge_error).
  void run_sanitizers(Task& t, int gpu, bool quiet);
  void finish(State& st, Task& t);
  // One build or test command, sandboxed or not; `extra_env` adds to the step's clean
  // environment (sandboxed) or to the judge's (not).
  ProcessResult run_step(const std::string& command, const std::filesystem::path& workspace,
                         double timeout_s, const StepExtras& extras) const;
  ProcessResult run_step(const std::string& command, const std::filesystem::path& workspace,
                         double timeout_s, const std::vector<std::string>& extra_env) const;
  // One build or test under the problem's limit `timeout`, the machine's limit
  // (machine_limit_factor) and, for builds (`cpu_grace`), the loaded machine's CPU-time grace
  // (starved_build_factor): what it gave, under which limit, and whether other steps ran beside
  // it.
  struct LimitedStep {
    ProcessResult result;
    double limit = 0;
    bool loaded = false;
  };
  LimitedStep run_under_limits(const std::string& command, const std::filesystem::path& workspace,
                               double timeout, StepExtras extras, bool quiet, bool cpu_grace);
  // What run_under_limits adds to a step's record (quiet_retry, extended_limit_s, cpu_limited).
  static void record_limits(StepRecord& s, const LimitedStep& run, double timeout, bool quiet);
  // A timed-out-under-load task, back to the start of a second attempt.
  static void begin_retry(Task& t);
  void retry_or_finish(State& st, std::unique_ptr<Task> t);
  std::filesystem::path workspace_for(const Task& t) const;
  // Runs the probe on `gpu`, up to three times; false with `why` when the GPU stays unwell.
  bool probe_gpu(int gpu, std::string* why) const;
  // A task none of whose GPUs is still in the pool can never be tested.
  bool stranded(const State& st, const Task& t) const;
  void take_gpu_out(State& st, int gpu, const std::string& why);
  static void insert_sorted(std::deque<std::unique_ptr<Task>>& q, std::unique_ptr<Task> t,
                            bool by_test);

  // A timed-out test's own, from the evidence (EvalOptions::timeout_evidence): why, or nullopt
  // when the machine could have caused it.
  // When a running test gives its GPU slot back (EvalOptions::suspects_per_gpu).
  double suspect_after_s(const Task& t) const;
  std::optional<std::string> own_timeout(const ProcessResult& r, double limit,
                                         double condemn_clear_s, double baseline_s) const;

  EvalOptions opt_;
  MachineInfo machine_;
  GpuShareClock gpu_share_;
  std::string build_env_;
  // The names a test or benchmark program must not define (eval/symbol_scan.h).
  std::set<std::string> relied_names_;
  std::unique_ptr<BuildCache> cache_;
  std::unique_ptr<CostModel> costs_;
  std::atomic<bool> stop_{false};
  std::atomic<int> running_steps_{0};
  std::atomic<long> step_starts_{0};
  std::string probe_command_;        // empty: no probing (no GPUs, or turned off)
  std::filesystem::path probe_exe_;  // the built-in probe, copied into each probe's workspace
  std::vector<int> pool_gpus_;
  PhaseTimes phases_;
  std::map<int, std::string> broken_;
  // Whether a build or test shared the machine with another step at any moment of its run, so
  // that its timeout cannot be trusted.
  struct StepLoad {
    int running_before = 0;
    long starts_before = 0;
  };
  StepLoad begin_step();
  bool end_step(const StepLoad& l);
};

// Workspace directory name for a task id: readable, and safe as one path component.
std::string sanitize_task_id(const std::string& task_id);

}  // namespace kjudge
