#include "eval/evaluator.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <list>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "eval/build_cache.h"
#include "eval/cost_model.h"
#include "eval/hidden_lines.h"
#include "eval/python_escape.h"
#include "eval/sanitizer.h"
#include "eval/schedule.h"
#include "eval/skip_rules.h"
#include "eval/solution_rules.h"
#include "eval/source_refs.h"
#include "eval/start_code_scan.h"
#include "eval/static_flags.h"
#include "eval/step_runner.h"
#include "eval/symbol_scan.h"
#include "eval/workspace.h"
#include "run/beside_binary.h"
#include "run/extra_libs.h"
#include "run/gpu_probe.h"
#include "run/machine_fault.h"
#include "run/main_return.h"
#include "run/process.h"
#include "run/sandbox.h"

namespace kjudge {
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

// What makes a built test or benchmark program unfit to carry the judge's code, one reason per
// finding. Only the programs that would carry the guard are read: a simple command's dynamically
// linked program inside the workspace.
//  * The loader runs a program's own .preinit_array entries and IFUNC resolvers before the
//    constructors of the libraries preloaded into it, the main guard's (run/main_return.h) and,
//    in a benchmark, the profiler's: such code could take their channels first
//    (start_code_scan.h).
//  * The guard's and the profiler's calls into libc bind to the program's own definition of the
//    name first: a program that defines `getenv` or `write` could read or rewrite what they
//    report (symbol_scan.h).
std::vector<std::string> unfit_programs(const Problem& p, const fs::path& workspace,
                                        const std::set<std::string>& relied) {
  std::vector<std::string> reasons;
  std::set<std::string> seen;
  for (const std::string* command :
       {&p.test_command, p.benchmark_command ? &*p.benchmark_command : nullptr}) {
    if (!command) continue;
    const auto simple = simple_command(*command);
    if (!simple) continue;
    const std::vector<std::string>* words = &simple->argv;
    if (!seen.insert(words->front()).second) continue;
    if (!main_guard_unfit(workspace, words->front()).empty()) continue;
    for (std::string& r : code_before_harness(
             workspace / words->front(), 0,
             "kjudge's main guard and profiler take their channels (" + words->front() + ")"))
      reasons.push_back(std::move(r));
    std::vector<std::string> names =
        interposed_names(workspace / words->front(), relied, /*linked_in=*/false);
    if (!names.empty()) {
      std::string list;
      for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
      reasons.push_back(words->front() + " " + list +
                        ": a name the C library or kjudge's main guard and profiler rely on, "
                        "which their calls would reach instead");
    }
  }
  return reasons;
}

// After a successful build: true, with the verdict set, when unfit_programs refuses it.
bool start_code_refused(const Problem& p, const fs::path& workspace,
                        const std::set<std::string>& relied, GradedSolution& g) {
  try {
    const std::vector<std::string> reasons = unfit_programs(p, workspace, relied);
    if (reasons.empty()) return false;
    g.verdict = Verdict::build_error;
    g.detail = "refused: ";
    for (std::size_t i = 0; i < reasons.size(); ++i) g.detail += (i ? "; " : "") + reasons[i];
  } catch (const std::exception& e) {
    g.verdict = Verdict::judge_error;
    g.detail = std::string("cannot inspect the built program: ") + e.what();
  }
  return true;
}

// A build-only job (EvalJob::build_only) ends once its workspace is built: a pass that says the
// test never ran.
bool ended_built_only(bool build_only, GradedSolution& g) {
  if (!build_only) return false;
  g.verdict = Verdict::pass;
  g.detail = "built only (not tested in this pass)";
  return true;
}

// After a successful build, fresh or cached: whether the job goes on to its test.
bool goes_on_after_build(const Problem& p, const fs::path& workspace,
                         const std::set<std::string>& relied, bool build_only, GradedSolution& g) {
  // Built: what runs next (the test, a benchmark) has no hidden source left to print.
  remove_hidden_sources(workspace, p);
  return !start_code_refused(p, workspace, relied, g) && !ended_built_only(build_only, g);
}

StepRecord to_record(const ProcessResult& r, int attempts) {
  StepRecord s;
  s.ran = r.started;
  s.exit_code = r.exit_code;
  s.signal = r.signal;
  s.timed_out = r.timed_out;
  s.wall_s = r.wall_s;
  s.log = r.output;
  s.log_truncated = r.truncated;
  s.log_bytes = r.output_bytes;
  s.memory_peak_bytes = r.memory_peak_bytes;
  s.attempts = attempts;
  return s;
}

// `sh -c` reports a child killed by signal N as exit status 128+N.
int effective_signal(const StepRecord& s) {
  if (s.signal) return s.signal;
  if (s.exit_code > 128 && s.exit_code < 128 + 65) return s.exit_code - 128;
  return 0;
}

std::string describe_signal(int sig) {
  const char* name = sigabbrev_np(sig);
  return std::string("SIG") + (name ? name : std::to_string(sig).c_str());
}

std::string first_line(const std::string& s, std::size_t max = 200) {
  std::size_t start = s.find_first_not_of(" \t\r\n");
  if (start == std::string::npos) return {};
  std::size_t end = s.find('\n', start);
  std::string line =
      s.substr(start, std::min(end == std::string::npos ? s.size() : end, start + max) - start);
  return line;
}

}  // namespace

std::string sanitize_task_id(const std::string& task_id) {
  std::string out;
  for (char c : task_id) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-') ? c : '_';
  return out.empty() ? "task" : out;
}

struct Evaluator::Task {
  const Problem* problem = nullptr;
  Solution solution;
  std::vector<int> gpus;  // eligible GPU indices; empty = any slot
  std::size_t rank = 0;   // position in the planned start order (schedule.h)
  double expected_test_s = 0;
  int attempt = 1;
  int judge_retries = 0;
  bool needs_quiet = false;
  // A quiet retry running side by side with others (run_quiet): a timeout with another step
  // beside it may be that step's doing, so it goes once more, alone.
  bool beside_others = false;
  // A fed run (a service) has no end to retry at: a timeout under load is retried at once, and
  // that second try is final.
  bool retried = false;
  bool loaded_during_step = false;
  Clock::time_point started{};
  Clock::time_point built{};  // when it joined the test queue
  fs::path workspace;
  bool build_only = false;
  bool keep_workspace = false;  // when it passes: a later stage (benchmarks) runs in it
  // A step of the test stage (a repeated run, a sanitizer's) may have left the GPU unwell.
  bool gpu_may_be_unwell = false;
  GradedSolution g;
};

struct Evaluator::State {
  std::mutex mu;
  std::condition_variable cv;
  // Kept sorted longest-expected-first.
  std::deque<std::unique_ptr<Task>> build_queue;
  std::deque<std::unique_ptr<Task>> test_queue;
  std::vector<std::unique_ptr<Task>> quiet;
  int unfinished = 0;
  bool feed_open = false;  // run(JobFeed&): more jobs may still come
  bool fed = false;        // run(JobFeed&): no end of the run to do the quiet retries at
  const std::function<void(const GradedSolution&)>* done = nullptr;
  std::mutex done_mu;
  std::map<int, std::string> broken;  // GPU index → why it left the pool
  // Tests running on each GPU that still hold a slot (EvalOptions::suspects_per_gpu), and each
  // running test's moment to give its slot back.
  std::map<int, int> holding;
  struct Running {
    int gpu = -1;
    Clock::time_point suspect_at{};
    bool released = false;
  };
  std::list<Running> running;
};

Evaluator::Evaluator(EvalOptions options, MachineInfo machine)
    : opt_(std::move(options)), machine_(std::move(machine)) {
  if (opt_.build_workers <= 0) opt_.build_workers = std::max(1, machine_.cpu_count);
  if (opt_.host_test_slots <= 0) opt_.host_test_slots = std::max(1, machine_.cpu_count);
  if (opt_.tests_per_gpu <= 0) opt_.tests_per_gpu = 1;
  if (opt_.cache_dir.empty()) opt_.cache_dir = default_cache_dir();
  if (opt_.work_root.empty())
    opt_.work_root = fs::temp_directory_path() / ("kjudge-work-" + std::to_string(getpid()));
  if (!opt_.main_guard) opt_.main_guard = locate_main_guard();
  if (opt_.repeat < 1) opt_.repeat = 1;
  if (!opt_.sanitize.empty() && !opt_.sanitizer)
    opt_.sanitizer = locate_compute_sanitizer(machine_.nvcc_path);
  // The profiler may be loaded into any benchmark run of this evaluator's programs.
  relied_names_ = judge_relied_names(
      {*opt_.main_guard, locate_beside_binary("KJUDGE_PROFILER", "libkjudge_profiler.so")},
      cuda_libraries(machine_.nvcc_path));

  // Everything outside the workspace that changes what a build produces.
  std::set<std::string> archs;
  for (const auto& g : machine_.gpus) archs.insert(g.compute_cap);
  build_env_ = "nvcc=" + machine_.nvcc_path + " " + machine_.nvcc_version_line + "\narch=";
  for (const auto& a : archs) build_env_ += a + ",";
  ProcessResult host_cc = run_shell("g++ -dumpfullversion 2>/dev/null", "/", 10);
  build_env_ += "\nhost_cc=" + first_line(host_cc.output);
  for (const char* var : {"NVCC_APPEND_FLAGS", "NVCC_PREPEND_FLAGS", "NVCC_CCBIN", "CUDA_HOME",
                          "CPATH", "LIBRARY_PATH"}) {
    const char* v = std::getenv(var);
    build_env_ += std::string("\n") + var + "=" + (v ? v : "");
  }
  // The folder of scripts/install-libs (cuDNN, cudnn-frontend), which every step sees.
  if (const std::optional<ExtraLibs> libs = find_extra_libs())
    build_env_ += "\nlibs=" + libs->root.string() + "\n" + libs->stamp;

  if (opt_.use_cache) cache_ = std::make_unique<BuildCache>(opt_.cache_dir / "builds");
  costs_ = std::make_unique<CostModel>(opt_.cache_dir / "timings.json");
}

Evaluator::~Evaluator() = default;

fs::path Evaluator::workspace_for(const Task& t) const {
  return opt_.work_root / (sanitize_task_id(t.problem->task_id) + "-s" +
                           std::to_string(t.solution.sample) + "-a" + std::to_string(t.attempt));
}

void JobFeed::push(EvalJob job) {
  std::lock_guard<std::mutex> lock(mu_);
  jobs_.push_back(std::move(job));
  cv_.notify_one();
}

void JobFeed::close() {
  std::lock_guard<std::mutex> lock(mu_);
  closed_ = true;
  cv_.notify_all();
}

std::optional<EvalJob> JobFeed::pop() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return !jobs_.empty() || closed_; });
  if (jobs_.empty()) return std::nullopt;
  EvalJob job = std::move(jobs_.front());
  jobs_.pop_front();
  return job;
}

void Evaluator::run(std::vector<EvalJob> jobs,
                    const std::function<void(const GradedSolution&)>& done) {
  State st;
  st.done = &done;
  std::vector<std::unique_ptr<Task>> tasks;
  std::vector<JobCost> costs;
  for (auto& job : jobs) {
    tasks.push_back(make_task(std::move(job)));
    costs.push_back(
        {costs_->expected_build_s(*tasks.back()->problem), tasks.back()->expected_test_s});
  }
  std::vector<std::size_t> order = plan_order(costs);
  for (std::size_t r = 0; r < order.size(); ++r) tasks[order[r]]->rank = r;
  std::sort(tasks.begin(), tasks.end(),
            [](const auto& a, const auto& b) { return a->rank < b->rank; });
  st.unfinished = static_cast<int>(tasks.size());
  for (auto& t : tasks) st.build_queue.push_back(std::move(t));
  execute(st, nullptr);
}

void Evaluator::run(JobFeed& feed, const std::function<void(const GradedSolution&)>& done) {
  State st;
  st.done = &done;
  st.feed_open = true;
  st.fed = true;
  execute(st, &feed);
}

std::unique_ptr<Evaluator::Task> Evaluator::make_task(EvalJob&& job) const {
  auto t = std::make_unique<Task>();
  t->problem = job.problem;
  t->solution = std::move(job.solution);
  t->build_only = job.build_only;
  t->keep_workspace = job.keep_workspace;
  t->expected_test_s = costs_->expected_test_s(*job.problem);
  t->g.task_id = job.problem->task_id;
  t->g.sample = t->solution.sample;
  t->g.group = job.problem->group;
  t->g.difficulty = job.problem->difficulty;
  // The solution's own files only: context files are the problem's, and may legitimately do
  // whatever the problem needs.
  t->g.flags = static_flags(t->solution.files, computeeval_context(*job.problem));
  return t;
}

void Evaluator::execute(State& st, JobFeed* feed) {
  std::vector<int> gpus = opt_.gpus;
  if (gpus.empty())
    for (const auto& g : machine_.gpus) gpus.push_back(g.index);
  pool_gpus_ = gpus;
  broken_.clear();
  probe_command_.clear();
  probe_exe_.clear();
  if (!gpus.empty() && opt_.gpu_probe) {
    if (!opt_.gpu_probe_command.empty()) {
      probe_command_ = opt_.gpu_probe_command;
    } else if (!machine_.nvcc_path.empty()) {
      std::string error;
      fs::path exe = build_gpu_probe(machine_.nvcc_path, opt_.cache_dir / "gpu-probe", &error);
      if (!exe.empty()) {
        probe_exe_ = exe;
        probe_command_ = "./gpu-probe";
      }
    }
  }

  phases_ = {};
  const Clock::time_point began = Clock::now();
  std::vector<std::thread> threads;
  for (int i = 0; i < opt_.build_workers; ++i)
    threads.emplace_back([this, &st] { build_worker(st); });
  if (gpus.empty()) {
    for (int i = 0; i < opt_.host_test_slots; ++i)
      threads.emplace_back([this, &st] { test_worker(st, -1); });
  } else {
    for (int g : gpus)
      for (int i = 0; i < opt_.tests_per_gpu + std::max(0, opt_.suspects_per_gpu); ++i)
        threads.emplace_back([this, &st, g] { test_worker(st, g); });
  }
  if (feed) {
    // Jobs arriving while the run goes: they start in arrival order, after what is queued.
    threads.emplace_back([this, &st, feed] {
      std::size_t rank = 0;
      while (std::optional<EvalJob> job = feed->pop()) {
        if (stop_) continue;  // drain: the producer must not block on a full feed
        auto t = make_task(std::move(*job));
        t->rank = rank++;
        std::lock_guard<std::mutex> lock(st.mu);
        ++st.unfinished;
        st.build_queue.push_back(std::move(t));
        st.cv.notify_all();
      }
      std::lock_guard<std::mutex> lock(st.mu);
      st.feed_open = false;
      st.cv.notify_all();
    });
  }
  for (auto& th : threads) th.join();
  phases_.main_s = std::chrono::duration<double>(Clock::now() - began).count();

  const Clock::time_point quiet_began = Clock::now();
  run_quiet(st, gpus);
  phases_.quiet_s = std::chrono::duration<double>(Clock::now() - quiet_began).count();
  broken_ = st.broken;
  costs_->save();
  if (!opt_.keep_workspaces) {
    std::error_code ec;
    fs::remove(opt_.work_root, ec);  // only if empty: another run may share the root
  }
}

// Timeouts seen under load, once more with none of the run's other work going on. They run
// side by side only as far as each still has what it uses to itself (issue 35: a serial tail
// of whole limits is what made a hang-heavy run slow): at most one per eight CPUs, so a
// compiler process keeps cores of its own, and at most one test on a GPU at a time.
void Evaluator::run_quiet(State& st, const std::vector<int>& gpus) {
  std::vector<std::unique_ptr<Task>> quiet = std::move(st.quiet);
  if (quiet.empty()) return;
  std::mutex mu;
  std::condition_variable gpu_free;
  std::set<int> busy;
  // Returns false when the retry timed out beside another and must go once more, alone.
  auto one = [&](Task& t) {
    begin_retry(t);
    if (check_and_build(t, true)) {
      std::unique_lock<std::mutex> lock(mu);
      // Any GPU the task may use that is still in the pool, once no other retry holds it.
      const std::vector<int>& mine = t.gpus.empty() ? gpus : t.gpus;
      auto usable = [&] {
        return std::any_of(mine.begin(), mine.end(), [&](int g) { return !st.broken.count(g); });
      };
      int gpu = -1;
      if (usable()) {
        gpu_free.wait(lock, [&] {
          for (int g : mine)
            if (!st.broken.count(g) && !busy.count(g)) {
              gpu = g;
              return true;
            }
          return false;
        });
        busy.insert(gpu);
      }
      lock.unlock();
      if (gpu < 0 && !gpus.empty()) {
        t.g.verdict = Verdict::judge_error;
        t.g.detail = "every GPU this problem can use was taken out of the pool";
      } else {
        run_test(t, gpu, true);
      }
      lock.lock();
      busy.erase(gpu);
      gpu_free.notify_all();
    }
    if (t.needs_quiet) return false;
    finish(st, t);
    return true;
  };
  const std::size_t width = std::min<std::size_t>(
      quiet.size(), static_cast<std::size_t>(std::max(1, machine_.cpu_count / 8)));
  phases_.quiet_retries = static_cast<int>(quiet.size());
  phases_.quiet_width = static_cast<int>(width);
  std::size_t next = 0;
  std::vector<Task*> alone;
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < width; ++i)
    threads.emplace_back([&] {
      for (;;) {
        Task* t = nullptr;
        {
          std::lock_guard<std::mutex> lock(mu);
          if (stop_ || next == quiet.size()) return;
          t = quiet[next++].get();
        }
        t->beside_others = width > 1;
        if (!one(*t)) {
          std::lock_guard<std::mutex> lock(mu);
          alone.push_back(t);
        }
      }
    });
  for (auto& th : threads) th.join();
  // A neighbour can slow a retry (a solution may hog every core it gets): only a timeout seen
  // alone is final.
  phases_.quiet_alone = static_cast<int>(alone.size());
  for (Task* t : alone) {
    if (stop_) break;
    t->beside_others = false;
    one(*t);
  }
}

void Evaluator::build_worker(State& st) {
  for (;;) {
    std::unique_ptr<Task> t;
    {
      std::unique_lock<std::mutex> lock(st.mu);
      st.cv.wait(lock, [&] {
        return !st.build_queue.empty() || (st.unfinished == 0 && !st.feed_open) || stop_;
      });
      if (stop_ || (st.build_queue.empty() && st.unfinished == 0 && !st.feed_open)) {
        st.cv.notify_all();
        return;
      }
      t = std::move(st.build_queue.front());
      st.build_queue.pop_front();
    }
    t->started = Clock::now();
    bool go_on = check_and_build(*t, t->retried);
    if (go_on && !t->needs_quiet) {
      std::unique_lock<std::mutex> lock(st.mu);
      if (!stranded(st, *t)) {
        t->built = Clock::now();
        insert_sorted(st.test_queue, std::move(t), /*by_test=*/true);
        st.cv.notify_all();
        continue;
      }
      lock.unlock();
      t->g.verdict = Verdict::judge_error;
      t->g.detail = "every GPU this problem can use was taken out of the pool";
      t->judge_retries = opt_.judge_error_retries;
    }
    retry_or_finish(st, std::move(t));
  }
}

void Evaluator::test_worker(State& st, int gpu) {
  for (;;) {
    std::unique_ptr<Task> t;
    {
      std::unique_lock<std::mutex> lock(st.mu);
      auto eligible = [&](const std::unique_ptr<Task>& x) {
        return gpu < 0 || x->gpus.empty() ||
               std::find(x->gpus.begin(), x->gpus.end(), gpu) != x->gpus.end();
      };
      // A GPU's slots: tests_per_gpu held at a time; a test past its suspect moment gives its
      // slot back (the waits below wake to see that moment come).
      auto slot_free = [&] { return gpu < 0 || st.holding[gpu] < opt_.tests_per_gpu; };
      auto release_suspects = [&] {
        const Clock::time_point now = Clock::now();
        for (State::Running& r : st.running)
          if (!r.released && now >= r.suspect_at) {
            r.released = true;
            --st.holding[r.gpu];
            ++phases_.suspects;
            st.cv.notify_all();
          }
      };
      for (;;) {
        release_suspects();
        if (stop_ || (st.unfinished == 0 && !st.feed_open) || st.broken.count(gpu) ||
            (slot_free() && std::any_of(st.test_queue.begin(), st.test_queue.end(), eligible)))
          break;
        if (gpu >= 0 && !st.running.empty())
          st.cv.wait_for(lock, std::chrono::milliseconds(250));
        else
          st.cv.wait(lock);
      }
      if (stop_ || (st.unfinished == 0 && !st.feed_open) || st.broken.count(gpu)) {
        st.cv.notify_all();
        return;
      }
      auto it = std::find_if(st.test_queue.begin(), st.test_queue.end(), eligible);
      t = std::move(*it);
      st.test_queue.erase(it);
      phases_.test_wait_s_sum += std::chrono::duration<double>(Clock::now() - t->built).count();
    }
    std::list<State::Running>::iterator mine;
    if (gpu >= 0) {
      std::lock_guard<std::mutex> lock(st.mu);
      ++st.holding[gpu];
      State::Running r;
      r.gpu = gpu;
      r.suspect_at = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double>(suspect_after_s(*t)));
      mine = st.running.insert(st.running.end(), r);
      st.cv.notify_all();  // a waiting worker now watches for this test's suspect moment
    }
    run_test(*t, gpu, t->retried);
    // The GPU is checked before its slot is free again: no test starts on a GPU that is unwell.
    if (gpu >= 0 && !probe_command_.empty() && t->gpu_may_be_unwell) {
      std::string why;
      if (!probe_gpu(gpu, &why)) take_gpu_out(st, gpu, why);
    }
    if (gpu >= 0) {
      std::lock_guard<std::mutex> lock(st.mu);
      if (!mine->released) --st.holding[gpu];
      st.running.erase(mine);
      st.cv.notify_all();
    }
    retry_or_finish(st, std::move(t));
  }
}

bool Evaluator::probe_gpu(int gpu, std::string* why) const {
  fs::path scratch = opt_.work_root / ("gpu-probe-" + std::to_string(gpu));
  for (int attempt = 0; attempt < 3; ++attempt) {
    std::error_code ec;
    fs::remove_all(scratch, ec);
    fs::create_directories(scratch, ec);
    // The judge copies the probe in: the sandbox sees the scratch workspace and nothing else.
    if (!probe_exe_.empty()) {
      try {
        place_gpu_probe(probe_exe_, scratch);
      } catch (const std::exception&) {
        return true;  // a fault of the judge says nothing about the GPU
      }
    }
    ProcessResult r =
        run_step(probe_command_, scratch, 60, {"CUDA_VISIBLE_DEVICES=" + std::to_string(gpu)});
    fs::remove_all(scratch, ec);
    if (r.ok()) return true;
    *why = r.timed_out ? "the GPU probe did not finish in 60 s" : first_line(r.output);
    if (why->empty()) why->assign("the GPU probe failed");
    std::this_thread::sleep_for(std::chrono::seconds(2));  // a reset may be in progress
  }
  return false;
}

bool Evaluator::stranded(const State& st, const Task& t) const {
  const std::vector<int>& wanted = t.gpus.empty() ? pool_gpus_ : t.gpus;
  if (wanted.empty()) return false;
  for (int g : wanted)
    if (!st.broken.count(g)) return false;
  return true;
}

void Evaluator::take_gpu_out(State& st, int gpu, const std::string& why) {
  std::vector<std::unique_ptr<Task>> orphans;
  {
    std::lock_guard<std::mutex> lock(st.mu);
    st.broken[gpu] = why;
    for (auto it = st.test_queue.begin(); it != st.test_queue.end();) {
      if (stranded(st, **it)) {
        orphans.push_back(std::move(*it));
        it = st.test_queue.erase(it);
      } else {
        ++it;
      }
    }
    st.cv.notify_all();
  }
  for (auto& o : orphans) {
    o->g.verdict = Verdict::judge_error;
    o->g.detail = "every GPU this problem can use was taken out of the pool (GPU " +
                  std::to_string(gpu) + ": " + why + ")";
    o->judge_retries = opt_.judge_error_retries;  // nothing left to retry on
    retry_or_finish(st, std::move(o));
  }
}

void Evaluator::begin_retry(Task& t) {
  t.needs_quiet = false;
  t.attempt++;
  t.g.build = {};
  t.g.test = {};
  t.g.repeats.clear();
  t.g.sanitizer.clear();
  t.g.detail.clear();
  t.started = Clock::now();
}

void Evaluator::retry_or_finish(State& st, std::unique_ptr<Task> t) {
  if (t->needs_quiet && opt_.quiet_retry) {
    if (!opt_.keep_workspaces) {
      std::error_code ec;
      fs::remove_all(t->workspace, ec);
    }
    std::lock_guard<std::mutex> lock(st.mu);
    if (st.fed) {
      // A service's evaluator never reaches the end of its run, where the quiet retries
      // happen: the job would wait there forever. Build and test it again now, first in line.
      begin_retry(*t);
      t->retried = true;
      st.build_queue.push_front(std::move(t));
    } else {
      st.quiet.push_back(std::move(t));
      --st.unfinished;  // leaves the concurrent phase; finished later, alone
    }
    st.cv.notify_all();
    return;
  }
  if (t->g.verdict == Verdict::judge_error && t->judge_retries < opt_.judge_error_retries &&
      !stop_) {
    if (!opt_.keep_workspaces) {
      std::error_code ec;
      fs::remove_all(t->workspace, ec);
    }
    t->judge_retries++;
    t->attempt++;
    t->g.build = {};
    t->g.test = {};
    t->g.repeats.clear();
    t->g.sanitizer.clear();
    std::lock_guard<std::mutex> lock(st.mu);
    insert_sorted(st.build_queue, std::move(t), /*by_test=*/false);
    st.cv.notify_all();
    return;
  }
  finish(st, *t);
  std::lock_guard<std::mutex> lock(st.mu);
  --st.unfinished;
  st.cv.notify_all();
}

void Evaluator::finish(State& st, Task& t) {
  t.g.total_s = std::chrono::duration<double>(Clock::now() - t.started).count();
  const bool keep = opt_.keep_workspaces || (t.keep_workspace && t.g.verdict == Verdict::pass);
  if (keep && !t.workspace.empty()) {
    t.g.workspace = t.workspace.string();
  } else if (!t.workspace.empty()) {
    std::error_code ec;
    fs::remove_all(t.workspace, ec);
  }
  std::lock_guard<std::mutex> lock(st.done_mu);
  (*st.done)(t.g);
}

bool Evaluator::check_and_build(Task& t, bool quiet) {
  const Problem& p = *t.problem;
  GradedSolution& g = t.g;

  // A build-only job needs no GPU: only what the build needs is asked.
  if (auto skip =
          t.build_only ? build_skip_reason(p, machine_) : skip_reason(p, machine_, nullptr)) {
    g.verdict = Verdict::skipped;
    g.skip_code = skip->code;
    g.detail = skip->message;
    return false;
  }
  t.gpus = eligible_gpus(p, machine_);
  if (!opt_.gpus.empty() && !t.build_only) {
    std::vector<int> allowed;
    for (int i : t.gpus)
      if (std::find(opt_.gpus.begin(), opt_.gpus.end(), i) != opt_.gpus.end()) allowed.push_back(i);
    if (allowed.empty() && !machine_.gpus.empty() && !p.host_only) {
      g.verdict = Verdict::skipped;
      g.skip_code = "compute_capability";
      g.detail = "no GPU among those selected (--gpus) fits this problem";
      return false;
    }
    t.gpus = allowed;
  }
  // Everything about the solution's files that could make the workspace fail, or make the
  // hidden test compile as its authors did not write it, is decided here, before a byte is
  // written: what fails after this point is the judge's or the machine's.
  if (!t.solution.refused.empty()) {
    g.verdict = Verdict::invalid_solution;
    g.detail = t.solution.refused;
    return false;
  }
  if (auto bad = check_solution_files(p, t.solution, opt_.solution_limits)) {
    g.verdict = Verdict::invalid_solution;
    g.detail = *bad;
    return false;
  }
  if (auto bad = python_escape(p, t.solution)) {
    g.verdict = Verdict::invalid_solution;
    g.detail = "refused: " + *bad;
    return false;
  }
  if (p.source_references && !p.source_references->empty()) {
    SourceRefCheck c = check_source_references(*p.source_references, t.solution.files);
    if (!c.passed) {
      g.verdict = Verdict::source_reference_missing;
      std::string missing;
      for (const auto& m : c.missing_all) missing += (missing.empty() ? "" : ", ") + m;
      if (c.any_missing) {
        std::string any;
        for (const auto& a : p.source_references->any) any += (any.empty() ? "" : " | ") + a;
        missing += (missing.empty() ? "" : "; ") + std::string("one of: ") + any;
      }
      g.detail = "the solution does not use the required API: " + missing;
      return false;
    }
  }

  t.workspace = workspace_for(t);
  try {
    if (fs::exists(t.workspace)) fs::remove_all(t.workspace);
    materialize_workspace(t.workspace, p, t.solution);
  } catch (const std::exception& e) {
    g.verdict = Verdict::judge_error;
    g.detail = std::string("cannot prepare the workspace: ") + e.what();
    return false;
  }

  if (!p.build_command || p.build_command->find_first_not_of(" \t") == std::string::npos)
    return !ended_built_only(t.build_only, g);  // nothing to build (cuda_python problems)

  const double timeout = p.timeout_or_default();
  FileHashes inputs;
  std::string key;
  if (cache_) {
    try {
      inputs = hash_tree(t.workspace);
      key = BuildCache::key(*p.build_command, build_env_, inputs);
      if (auto hit = cache_->restore(key, t.workspace)) {
        g.build.ran = true;
        g.build.cached = true;
        g.build.exit_code = hit->exit_code;
        g.build.log = HiddenLines(p).redact(hit->log);
        g.build.log_truncated = hit->log_truncated;
        g.build.log_bytes = hit->log_bytes;
        g.build.wall_s = 0;
        g.build.attempts = 1;
        if (hit->exit_code != 0) {
          g.verdict = Verdict::build_error;
          g.detail = "build failed (cached): " + first_line(g.build.log);
          return false;
        }
        return goes_on_after_build(p, t.workspace, relied_names_, t.build_only, g);
      }
    } catch (const std::exception&) {
      key.clear();  // hashing failed: build without the cache
    }
  }

  const LimitedStep run =
      run_under_limits(*p.build_command, t.workspace, timeout, problem_step_extras(p, machine_),
                       quiet, /*cpu_grace=*/true);
  const ProcessResult& r = run.result;
  const double limit = run.limit;
  const bool loaded = run.loaded;
  g.build = to_record(r, t.attempt);
  g.build.log = HiddenLines(p).redact(g.build.log);
  record_limits(g.build, run, timeout, quiet);

  if (!r.started) {
    g.verdict = Verdict::judge_error;
    g.detail = "could not start the build: " + r.error;
    return false;
  }
  if (!r.limit_exceeded.empty()) {
    g.verdict = Verdict::build_error;
    g.detail = "the build was stopped: it " + r.limit_exceeded;
    return false;
  }
  if (r.timed_out) {
    if (loaded && opt_.quiet_retry && (!quiet || t.beside_others)) {
      t.needs_quiet = true;
      return false;
    }
    g.verdict = Verdict::build_timeout;
    g.detail = "build did not finish within " + std::to_string(static_cast<int>(limit)) + " s";
    return false;
  }
  if (r.signal == 0) {
    costs_->observe(p.task_id, r.wall_s, -1);
    if (cache_ && !key.empty()) {
      CachedBuild rec{r.exit_code, g.build.log, g.build.log_truncated, g.build.log_bytes, r.wall_s};
      cache_->store(key, t.workspace, inputs, rec);
    }
  }
  if (r.exit_code != 0 || r.signal != 0) {
    g.verdict = Verdict::build_error;
    g.detail = r.signal ? "the compiler was killed by " + describe_signal(r.signal)
                        : "build failed: " + first_line(g.build.log);
    return false;
  }
  return goes_on_after_build(p, t.workspace, relied_names_, t.build_only, g);
}

void Evaluator::run_test(Task& t, int gpu, bool quiet) {
  GradedSolution& g = t.g;
  g.repeats.clear();
  g.sanitizer.clear();
  t.gpu_may_be_unwell = false;
  // --repeat: every run counts. The first failing run gives the verdict, its detail and its
  // record; the runs go on after it, so that every run's verdict is known.
  struct Failure {
    int run;
    Verdict verdict;
    std::string detail;
    StepRecord test;
  };
  std::optional<Failure> first_failure;
  for (int i = 1; i <= opt_.repeat; ++i) {
    test_once(t, gpu, quiet);
    t.gpu_may_be_unwell |=
        gpu_may_be_unwell(g.test.timed_out, effective_signal(g.test), g.test.log);
    // A timeout under load goes to the quiet retry (all its runs again), a judge fault to its
    // retry: neither is a verdict of this solution's.
    if (t.needs_quiet || g.verdict == Verdict::judge_error) {
      g.repeats.clear();
      return;
    }
    if (opt_.repeat > 1)
      g.repeats.push_back(
          {g.verdict, g.detail, g.test.exit_code, g.test.signal, g.test.timed_out, g.test.wall_s});
    if (g.verdict != Verdict::pass && !first_failure)
      first_failure = Failure{i, g.verdict, g.detail, g.test};
  }
  if (first_failure) {
    g.verdict = first_failure->verdict;
    g.test = std::move(first_failure->test);
    g.detail = opt_.repeat == 1 ? first_failure->detail
                                : "run " + std::to_string(first_failure->run) + " of " +
                                      std::to_string(opt_.repeat) + ": " + first_failure->detail;
    return;
  }
  if (!opt_.sanitize.empty()) run_sanitizers(t, gpu, quiet);
}

void Evaluator::run_sanitizers(Task& t, int gpu, bool quiet) {
  const Problem& p = *t.problem;
  GradedSolution& g = t.g;
  const double timeout = p.timeout_or_default() * std::max(1.0, opt_.sanitize_timeout_factor);
  const fs::path& sanitizer = *opt_.sanitizer;
  const HiddenLines hidden(p);
  for (const std::string& tool : opt_.sanitize) {
    SanitizerRecord rec;
    if (sanitizer.empty()) {
      rec.tool = tool;
      rec.detail =
          "compute-sanitizer not found (beside nvcc, --sanitizer, KJUDGE_COMPUTE_SANITIZER)";
    } else {
      // The test step again, its program started by the sanitizer; no main guard (sanitizer.h).
      StepExtras extras = problem_step_extras(p, machine_);
      if (gpu >= 0) extras.env.push_back("CUDA_VISIBLE_DEVICES=" + std::to_string(gpu));
      extras.argv = sanitizer_argv(sanitizer, tool, p.test_command);
      // A sanitizer outside /usr (which every step sees): its folder, with its libraries.
      std::error_code ec;
      const fs::path home = fs::weakly_canonical(sanitizer, ec).parent_path();
      if (!ec && home.string().rfind("/usr/", 0) != 0) extras.ro_paths.push_back(home);
      StepLoad load = begin_step();
      ProcessResult r = run_step(p.test_command, t.workspace, timeout, extras);
      const bool loaded = end_step(load);
      if (r.timed_out && loaded && opt_.quiet_retry && (!quiet || t.beside_others)) {
        t.needs_quiet = true;  // all of it again at the end, alone on the machine
        g.sanitizer.clear();
        return;
      }
      rec = judge_sanitizer_run(tool, r, timeout);
      rec.step = to_record(r, t.attempt);
      rec.step.log = hidden.redact(rec.step.log);
      rec.step.quiet_retry = quiet;
      for (std::string& line : rec.report) line = hidden.redact(line);
      rec.detail = hidden.redact(rec.detail);
      t.gpu_may_be_unwell |=
          gpu_may_be_unwell(r.timed_out, effective_signal(rec.step), rec.step.log);
    }
    g.sanitizer.push_back(std::move(rec));
  }
  // Errors the problem's own baseline has too under a tool are the problem's: reported, not
  // charged (a solution that copies the reference must not fail where the reference passes).
  const auto flagged = opt_.baseline_sanitizer_errors.find(p.task_id);
  std::string noted;
  for (SanitizerRecord& rec : g.sanitizer)
    if (rec.outcome == SanitizerOutcome::errors &&
        flagged != opt_.baseline_sanitizer_errors.end() && flagged->second.count(rec.tool)) {
      rec.baseline_too = true;
      noted += (noted.empty() ? "" : "; ") + rec.tool + ": " + std::to_string(rec.errors) +
               " errors, as the problem's own baseline has on this machine (not charged)";
    }
  // A found error is the solution's, whatever another tool could not judge.
  for (const SanitizerRecord& rec : g.sanitizer)
    if (rec.outcome == SanitizerOutcome::errors && !rec.baseline_too) {
      g.verdict = Verdict::sanitizer_error;
      g.detail = rec.detail;
      return;
    }
  for (const SanitizerRecord& rec : g.sanitizer)
    if (rec.outcome == SanitizerOutcome::inconclusive) {
      g.verdict = Verdict::judge_error;
      g.detail = rec.detail;
      // Again would only be as slow, or as missing: reported now, never charged.
      t.judge_retries = std::max(t.judge_retries, opt_.judge_error_retries);
      return;
    }
  if (!noted.empty()) g.detail = noted;
}

void Evaluator::test_once(Task& t, int gpu, bool quiet) {
  const Problem& p = *t.problem;
  GradedSolution& g = t.g;
  g.gpu = gpu;
  std::vector<std::string> env;
  if (gpu >= 0) env.push_back("CUDA_VISIBLE_DEVICES=" + std::to_string(gpu));

  const double timeout = p.timeout_or_default();
  // The program runs alone (not under `sh -c`) with the main guard when it is the workspace's
  // own dynamically linked program: an exit status of 0 then counts only if main() returned.
  StepExtras extras = problem_step_extras(p, machine_);
  extras.env.insert(extras.env.end(), env.begin(), env.end());
  std::optional<MainGuard> guard;
  try {
    guard =
        attach_main_guard(*opt_.main_guard, t.workspace, simple_command(p.test_command), extras);
  } catch (const std::exception& e) {
    g.verdict = Verdict::judge_error;
    g.detail = e.what();
    return;
  }
  // The evidence a timeout under load is judged on (EvalOptions::timeout_evidence).
  double baseline_s = 0, condemn = 0;
  if (opt_.timeout_evidence && opt_.quiet_retry) {
    if (!quiet) extras.stall_wall_cap_s = timeout * opt_.stall_test_factor;
    if (auto b = opt_.baseline_test_s.find(p.task_id);
        b != opt_.baseline_test_s.end() && b->second > 0) {
      baseline_s = b->second;
      condemn = std::max(opt_.hang_baseline_factor * baseline_s, opt_.hang_limit_share * timeout);
    }
    extras.condemn_clear_s = condemn;
  }
  struct OnGpu {  // counts the test on its GPU's share clock for as long as it runs
    GpuShareClock& clock;
    int gpu;
    OnGpu(GpuShareClock& c, int g) : clock(c), gpu(g) {
      if (gpu >= 0) clock.enter(gpu);
    }
    ~OnGpu() {
      if (gpu >= 0) clock.leave(gpu);
    }
  } on_gpu(gpu_share_, gpu);
  if (gpu >= 0)
    extras.shared_lost_s = [this, gpu, at = gpu_share_.lost(gpu)] {
      return gpu_share_.lost(gpu) - at;
    };
  const LimitedStep run =
      run_under_limits(p.test_command, t.workspace, timeout, extras, quiet, /*cpu_grace=*/false);
  const ProcessResult& r = run.result;
  const double limit = run.limit;
  const bool loaded = run.loaded;
  g.test = to_record(r, t.attempt);
  g.test.log = HiddenLines(p).redact(g.test.log);
  record_limits(g.test, run, timeout, quiet);
  if (r.lost_s >= 0) g.test.lost_s = r.lost_s;
  if (r.wall_s > 0) costs_->observe(p.task_id, -1, r.wall_s);

  if (!r.started) {
    g.verdict = Verdict::judge_error;
    g.detail = "could not start the test: " + r.error;
    return;
  }
  if (!r.limit_exceeded.empty()) {
    g.verdict = Verdict::test_fail;
    g.detail = "the test was stopped: it " + r.limit_exceeded;
    return;
  }
  if (r.timed_out) {
    if (loaded && opt_.quiet_retry && (!quiet || t.beside_others)) {
      if (std::optional<std::string> own = own_timeout(r, limit, condemn, baseline_s)) {
        g.verdict = Verdict::test_timeout;
        g.detail = *own;
        return;
      }
      t.needs_quiet = true;
      return;
    }
    g.verdict = Verdict::test_timeout;
    g.detail = "test did not finish within " + std::to_string(static_cast<int>(limit)) + " s";
    return;
  }
  if (r.exit_code == 0 && r.signal == 0) {
    if (std::optional<std::string> early = guard ? guard->problem(0) : std::nullopt) {
      g.verdict = Verdict::test_fail;
      g.detail = *early;
      return;
    }
    g.verdict = Verdict::pass;
    g.detail.clear();
    return;
  }
  // The program's output names a fault of the machine, but the program writes its own output:
  // printing "cudaErrorNoDevice" must not turn a wrong answer into a judge_error, which is
  // retried and left out of pass@k. The judge's own probe on that GPU decides; a problem run
  // with no GPU (host_only) never had one to lose.
  std::string note;
  if (std::string fault = machine_fault(r.output); !fault.empty()) {
    std::string why;
    if (gpu >= 0 && (probe_command_.empty() || !probe_gpu(gpu, &why))) {
      g.verdict = Verdict::judge_error;
      g.detail = "the GPU was not usable: " + fault + (why.empty() ? "" : " (probe: " + why + ")");
      return;
    }
    note = gpu >= 0 ? " (its output names a GPU fault, \"" + fault +
                          "\", but kjudge's probe ran on that GPU)"
                    : " (its output names a GPU fault, \"" + fault +
                          "\", on a problem that runs without a GPU)";
  }
  if (int sig = effective_signal(g.test)) {
    g.verdict = Verdict::crash;
    g.detail = "test killed by " + describe_signal(sig) + note;
    return;
  }
  g.verdict = Verdict::test_fail;
  g.detail = "test exited with code " + std::to_string(r.exit_code) + note;
}

Evaluator::LimitedStep Evaluator::run_under_limits(const std::string& command,
                                                   const fs::path& workspace, double timeout,
                                                   StepExtras extras, bool quiet, bool cpu_grace) {
  // A step that timed out alone on the machine runs once more under the machine's limit
  // (EvalOptions::machine_limit_factor) where the caller asks for it; a quiet retry, alone by
  // design, starts there (what it took says whether it needed more than the problem's limit).
  const bool machine_limit = opt_.machine_limit_factor > 1;
  LimitedStep run;
  run.limit = quiet && machine_limit ? timeout * opt_.machine_limit_factor : timeout;
  for (;;) {
    // A quiet retry is alone by design: its wall clock decides.
    extras.starved_wall_cap_s = cpu_grace && !quiet && opt_.starved_build_factor > 1
                                    ? run.limit * opt_.starved_build_factor
                                    : 0;
    StepLoad load = begin_step();
    run.result = run_step(command, workspace, run.limit, extras);
    run.loaded = end_step(load);
    // The CPU-time grace is for a machine that was loaded: alone, wall time past the limit with
    // CPU time under it was the step's own waiting, and the limit stands.
    if ((run.result.cpu_limited || run.result.stall_graced) && !run.loaded)
      run.result.timed_out = true;
    if (!run.result.timed_out || run.limit != timeout || !machine_limit ||
        (run.loaded && !quiet && opt_.quiet_retry))
      return run;
    run.limit = timeout * opt_.machine_limit_factor;
  }
}

double Evaluator::suspect_after_s(const Task& t) const {
  // Where suspects get no slots of their own, every test keeps its slot to the end.
  if (opt_.suspects_per_gpu <= 0) return 1e9;
  auto b = opt_.baseline_test_s.find(t.problem->task_id);
  if (b == opt_.baseline_test_s.end() || b->second <= 0) return opt_.suspect_unknown_s;
  return std::max(opt_.suspect_min_s, opt_.suspect_after_baseline * b->second);
}

std::optional<std::string> Evaluator::own_timeout(const ProcessResult& r, double limit,
                                                  double condemn_clear_s, double baseline_s) const {
  if (!opt_.timeout_evidence || r.lost_s < 0) return std::nullopt;
  const double clear = r.wall_s - r.lost_s;
  // The run is stopped the moment its clear time reaches the limit; a reading taken a poll
  // later may fall a hair short.
  if (clear >= limit * 0.995)
    return fmt::format(
        "test did not finish within {} s: it had {:.1f} s clear of the machine's load ({:.1f} s "
        "of {:.1f} s lost to it)",
        static_cast<int>(limit), clear, r.lost_s, r.wall_s);
  if (condemn_clear_s > 0 && clear >= condemn_clear_s * 0.995)
    return fmt::format(
        "test did not finish within {} s: in {:.1f} s clear of the machine's load ({:.1f} s of "
        "{:.1f} s lost to it) it ran more than {:g} times the problem's baseline test on this "
        "machine ({:.2f} s)",
        static_cast<int>(limit), clear, r.lost_s, r.wall_s, opt_.hang_baseline_factor, baseline_s);
  return std::nullopt;
}

void Evaluator::record_limits(StepRecord& s, const LimitedStep& run, double timeout, bool quiet) {
  s.quiet_retry = quiet;
  if (run.limit != timeout && (run.result.timed_out || run.result.wall_s > timeout))
    s.extended_limit_s = run.limit;
  if (run.result.cpu_limited && run.loaded) {
    s.cpu_limited = true;
    s.cpu_s = run.result.cpu_s;
  }
}

Evaluator::StepLoad Evaluator::begin_step() {
  StepLoad l;
  l.running_before = running_steps_.fetch_add(1);
  l.starts_before = step_starts_.fetch_add(1);
  return l;
}

bool Evaluator::end_step(const StepLoad& l) {
  int running_after = running_steps_.fetch_sub(1);
  // Another step was running when this one began, still ran when it ended, or began in between.
  return l.running_before > 0 || running_after > 1 || step_starts_.load() - l.starts_before > 1;
}

ProcessResult Evaluator::run_step(const std::string& command, const fs::path& workspace,
                                  double timeout_s, const StepExtras& extras) const {
  StepSettings settings{opt_.sandbox, opt_.bwrap, opt_.memory_limit_bytes, opt_.log_cap};
  return kjudge::run_step(settings, machine_, command, workspace, timeout_s, extras);
}

ProcessResult Evaluator::run_step(const std::string& command, const fs::path& workspace,
                                  double timeout_s,
                                  const std::vector<std::string>& extra_env) const {
  StepExtras extras;
  extras.env = extra_env;
  return run_step(command, workspace, timeout_s, extras);
}

void Evaluator::insert_sorted(std::deque<std::unique_ptr<Task>>& q, std::unique_ptr<Task> t,
                              bool by_test) {
  // Builds keep the planned order; tests run longest-expected first.
  auto before = [&](const auto& x) {
    return by_test ? x->expected_test_s < t->expected_test_s : x->rank > t->rank;
  };
  q.insert(std::find_if(q.begin(), q.end(), before), std::move(t));
}

}  // namespace kjudge
