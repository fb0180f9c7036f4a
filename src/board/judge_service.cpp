#include "board/judge_service.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>

#include "board/kernelbench_job.h"
#include "board/pack_timing.h"
#include "core/private_dir.h"
#include "eval/graded.h"
#include "eval/graded_json.h"
#include "kernelbench/judge/eval.h"
#include "run/gpu_lock.h"
#include "run/machine_fault.h"
#include "task/build.h"
#include "task/harness_choice.h"
#include "task/run.h"
#include "task/stage.h"

namespace kjudge::board {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// "pack:NAME#TASK_ID" → (NAME, TASK_ID)
bool split_pack_target(const std::string& t, std::string* pack, std::string* task) {
  if (t.rfind("pack:", 0) != 0) return false;
  std::size_t hash = t.find('#');
  if (hash == std::string::npos) return false;
  *pack = t.substr(5, hash - 5);
  *task = t.substr(hash + 1);
  return true;
}

// Issue 9: a board's ranked run whose result carries flags (a task stage's `cheat_flags`, a
// pack result's: the static pass's and its timing's) waits for an admin before it ranks. Flags are
// never a verdict, so the run is kept as judged; only its place on the board waits.
void hold_if_flagged(Run& r, const json& result, bool on_board) {
  if (!on_board || r.mode != "leaderboard" || r.secret) return;
  const auto f = result.find("cheat_flags");
  if (f != result.end() && f->is_array() && !f->empty()) r.review = "pending";
}

// A worker's steps die of the SIGTERM Slurm sends the whole job (scancel, the time limit), and
// may be graded before the worker's own handler has run: such a result waits a moment for it.
bool by_sigterm(const StepRecord& s) { return s.signal == SIGTERM || s.exit_code == 128 + SIGTERM; }
bool died_of_sigterm(const GradedSolution& g) { return by_sigterm(g.build) || by_sigterm(g.test); }

}  // namespace

bool JudgeService::stopping_soon() const {
  for (int i = 0; i < 20 && !dropping(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  return dropping();
}

JudgeService::JudgeService(Store& store, JudgeServiceOptions options, MachineInfo machine)
    : store_(store), opt_(std::move(options)), machine_(std::move(machine)) {
  // Work this worker left running when it died goes back to the queue first.
  store_.requeue_running(opt_.worker_id + "/");
  for (const auto& [name, dir] : opt_.tasks) {
    try {
      if (load_task(dir).lang == "py") python_tasks_.insert(name);
    } catch (const std::exception&) {
      // Said when a submission for it is judged (judge_task), not here.
    }
  }
  if (!opt_.process) return;
  if (!python_tasks_.empty() || !opt_.kernelbench.empty()) {
    python_ = std::make_unique<ServicePython>(opt_.python);
    if (std::string why = python_->why(); !why.empty())
      std::fprintf(stderr, "kjudge serve: Python tasks and KernelBench refused: %s\n", why.c_str());
  }
  evaluator_ = std::make_unique<Evaluator>(opt_.eval, machine_);
  TaskGpuOptions tg;
  tg.step = opt_.step;
  tg.probe = opt_.eval.gpu_probe;
  tg.probe_command = opt_.eval.gpu_probe_command;
  tg.cache_dir = opt_.eval.cache_dir;
  tg.work_root = opt_.eval.work_root;
  task_gpu_ = std::make_unique<TaskGpu>(tg, machine_);
  eval_thread_ = std::thread([this] {
    evaluator_->run(feed_, [this](const GradedSolution& g) {
      if (dropping() || (opt_.stopping && died_of_sigterm(g) && stopping_soon())) return;
      Pending p;
      {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = pending_.find(g.sample);
        if (it == pending_.end()) return;
        p = std::move(it->second);
        pending_.erase(it);
      }
      record_pack_result(p, g);
      if (p.timed && g.verdict == Verdict::pass) {
        std::lock_guard<std::mutex> lock(mu_);
        ++timing_;
        to_time_.emplace_back(std::move(p), g);
        to_time_cv_.notify_one();
      } else {
        finish_pack(p);
      }
    });
  });
  bench_thread_ = std::thread([this] { bench_loop(); });
  dispatch_thread_ = std::thread([this] { dispatch_loop(); });
}

JudgeService::~JudgeService() { stop(); }

void JudgeService::stop() {
  if (stop_.exchange(true)) return;
  if (dispatch_thread_.joinable()) dispatch_thread_.join();
  feed_.close();
  if (eval_thread_.joinable()) eval_thread_.join();
  {
    std::lock_guard<std::mutex> lock(mu_);
    to_time_cv_.notify_all();
  }
  // Solutions still waiting to be timed stay running in the queue: requeued at the next start.
  if (bench_thread_.joinable()) bench_thread_.join();
}

int JudgeService::abandon() {
  abandon_.store(true);
  if (evaluator_) evaluator_->request_stop();
  stop();
  return store_.requeue_running(opt_.worker_id + "/");
}

const Problem* JudgeService::pack_problem(const std::string& target) const {
  std::string pack, task;
  if (!split_pack_target(target, &pack, &task)) return nullptr;
  auto it = opt_.packs.find(pack);
  if (it == opt_.packs.end()) return nullptr;
  for (const auto& p : it->second)
    if (p.task_id == task) return &p;
  return nullptr;
}

std::string JudgeService::solution_file_name(const Problem& problem) {
  if (problem.baseline_solution && problem.baseline_solution->files.size() == 1)
    return problem.baseline_solution->files[0].path;
  return "";
}

std::string JudgeService::refused_here(const std::string& why, const std::string& what) const {
  if (why.empty() || store_.dialect() != std::string("sqlite")) return "";
  return "this service cannot judge " + what + ": " + why;
}

const kernelbench::Problem* JudgeService::kernelbench_problem(const std::string& target,
                                                              std::string* stored) const {
  std::string why, set;
  const kernelbench::Problem* p = find_kernelbench_problem(opt_.kernelbench, target, &why, &set);
  if (p && stored) *stored = kernelbench_target(set, *p);
  return p;
}

std::string JudgeService::check_target(const std::string& target) const {
  std::string pack, task;
  if (split_pack_target(target, &pack, &task)) {
    auto p = opt_.packs.find(pack);
    if (p == opt_.packs.end()) return "no pack named '" + pack + "' is loaded";
    for (const auto& prob : p->second)
      if (prob.task_id == task) return "";
    return "pack '" + pack + "' has no problem '" + task + "'";
  }
  if (target.rfind("task:", 0) == 0) {
    const std::string name = target.substr(5);
    if (!opt_.tasks.count(name)) return "no task named '" + name + "' is loaded";
    // On SQLite this instance is the only judge there is: a task it cannot run would wait
    // forever. On PostgreSQL another instance's worker may take it.
    if (std::string why = refused_here(task_refusal(), "tasks"); !why.empty()) return why;
    return python_task_refusal(name);
  }
  if (target.rfind("kernelbench:", 0) == 0) {
    std::string why, set;
    const kernelbench::Problem* p = find_kernelbench_problem(opt_.kernelbench, target, &why, &set);
    if (!p) return why;
    if (std::string r = refused_here(python_refusal(), "KernelBench"); !r.empty()) return r;
    if (std::string r = refused_here(task_refusal(), "KernelBench"); !r.empty()) return r;
    std::string hf_why;
    if (p->needs_hf() && kernelbench::hf_cache("", &hf_why).empty())
      return refused_here(hf_why, "KernelBench level 4");
    return "";
  }
  return "a target is pack:NAME#TASK_ID, task:NAME or kernelbench:NAME#L1/19";
}

std::vector<std::string> JudgeService::refused_targets(bool tasks) const {
  std::vector<std::string> out;
  // KernelBench runs on the GPU as tasks do, and in the Python Python tasks run in.
  if (!tasks || !python_refusal().empty()) out.push_back("kernelbench:%");
  if (!python_refusal().empty())
    for (const auto& name : python_tasks_) out.push_back("task:" + like_literal(name));
  return out;
}

void JudgeService::dispatch_loop() {
  int n = 0;
  // Asked once before any job, then again a minute after each refusal (a driver put right).
  bool tasks = task_gpu_->usable();
  auto asked = std::chrono::steady_clock::now();
  auto python_asked = asked;
  if (!tasks)
    std::fprintf(stderr, "kjudge serve: task jobs refused: %s\n", task_gpu_->why().c_str());
  while (!stop_.load()) {
    if (!tasks && std::chrono::steady_clock::now() - asked > std::chrono::seconds(60)) {
      tasks = task_gpu_->recheck();
      asked = std::chrono::steady_clock::now();
    }
    // A Python whose torch could not use the GPU after a run is asked again a minute later (a
    // refusal from the start stands: the interpreter lacks torch until the service restarts).
    if (python_ && python_->failed_recheck() &&
        std::chrono::steady_clock::now() - python_asked > std::chrono::seconds(60)) {
      python_->recheck_gpu(task_gpu_index());
      python_asked = std::chrono::steady_clock::now();
    }
    if (in_flight_.load() >= opt_.max_in_flight || timing_.load() > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      continue;
    }
    std::optional<Job> job;
    try {
      job = store_.claim(opt_.worker_id + "/" + std::to_string(n++ % 1000), tasks,
                         refused_targets(tasks));
    } catch (const std::exception&) {
      job.reset();  // the database is busy or away: try again shortly
    }
    if (!job) {
      std::unique_lock lock(poke_mu_);
      poke_cv_.wait_for(lock, std::chrono::milliseconds(20),
                        [this] { return poked_ || stop_.load(); });
      poked_ = false;
      continue;
    }
    std::optional<Submission> sub = store_.submission(job->submission_id);
    if (!sub) {
      store_.finish(job->id, false);
      continue;
    }
    std::string pack, task;
    if (split_pack_target(sub->target, &pack, &task)) {
      const Problem* problem = pack_problem(sub->target);
      Solution s;
      s.task_id = task;
      try {
        const json files = json::parse(store_.code(sub->code_id));
        for (const auto& [path, text] : files.items())
          s.files.push_back({path, text.get<std::string>()});
      } catch (const std::exception&) {
        problem = nullptr;
      }
      if (!problem) {
        Run r;
        r.submission_id = sub->id;
        r.mode = "judge";
        r.started_us = r.ended_us = now_us();
        r.result =
            json({{"verdict", "judge_error"}, {"detail", "the target or the files are unusable"}})
                .dump();
        store_.add_run(r);
        store_.set_status(sub->id, "failed");
        store_.finish(job->id, false);
        announce_finished();
        continue;
      }
      Pending p;
      p.job_id = job->id;
      p.submission_id = sub->id;
      p.problem = problem;
      p.mode = sub->leaderboard_id ? "test" : "judge";
      // Timed after its tests: a pack board's leaderboard submission (ranked), or a judge
      // request in benchmark mode (an RL reward with a speedup; not ranked anywhere).
      p.timed = sub->leaderboard_id ? sub->mode == "leaderboard" : sub->mode == "benchmark";
      p.timed_mode = sub->leaderboard_id ? "leaderboard" : "benchmark";
      {
        std::lock_guard<std::mutex> lock(mu_);
        s.sample = next_sample_++;
        p.solution = s;
        pending_[s.sample] = std::move(p);
      }
      ++in_flight_;
      feed_.push({problem, std::move(s)});
    } else if (sub->target.rfind("kernelbench:", 0) == 0) {
      // Timed pairs need the GPU alone, as a task's timed runs do.
      while (sub->mode == "benchmark" && in_flight_.load() > 0 && !stop_.load())
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      judge_kernelbench_job(*job, *sub);
    } else {
      // A task's timed runs need the GPU alone: the pack jobs in flight finish first, and none
      // start meanwhile (this loop is their only feeder).
      while (sub->mode != "test" && in_flight_.load() > 0 && !stop_.load())
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      if (!judge_task(*job, *sub)) {
        tasks = false;
        asked = std::chrono::steady_clock::now();
        std::fprintf(stderr, "kjudge serve: task jobs refused: %s\n", task_gpu_->why().c_str());
      }
    }
  }
}

void JudgeService::record_pack_result(const Pending& p, const GradedSolution& g) {
  Run r;
  r.submission_id = p.submission_id;
  r.mode = p.mode;
  r.passed = g.verdict == Verdict::pass;
  r.started_us = now_us();
  r.ended_us = r.started_us;
  r.gpu_type = opt_.gpu_type;
  r.result = graded_to_json(g).dump();
  r.system_info = json({{"driver", machine_.driver_version},
                        {"cuda", machine_.cuda_version.value_or("")},
                        {"gpus", machine_.gpus.size()}})
                      .dump();
  store_.add_run(r);
}

void JudgeService::on_finished(std::function<void()> hook) {
  std::lock_guard lock(hook_mu_);
  finished_hook_ = std::move(hook);
}

void JudgeService::poke() {
  {
    std::lock_guard lock(poke_mu_);
    poked_ = true;
  }
  poke_cv_.notify_all();
}

void JudgeService::announce_finished() {
  std::lock_guard lock(hook_mu_);
  if (finished_hook_) finished_hook_();
}

void JudgeService::finish_pack(const Pending& p) {
  store_.set_status(p.submission_id, "done");
  store_.finish(p.job_id, true);
  announce_finished();
  ++judged_;
  --in_flight_;
}

// A pack board's ranked run (or a benchmark-mode judge request's timed run): the passing
// solution timed against the baseline, scored by its median. No secret run: a pack problem's inputs
// are its test program's, with no seed to vary.
void JudgeService::bench_loop() {
  for (;;) {
    std::pair<Pending, GradedSolution> item;
    {
      std::unique_lock<std::mutex> lock(mu_);
      to_time_cv_.wait(lock, [this] { return stop_.load() || !to_time_.empty(); });
      if (stop_.load()) return;
      item = std::move(to_time_.front());
      to_time_.pop_front();
    }
    const auto& [p, g] = item;
    // The GPU alone: the jobs still being graded finish first (none start while timing_ > 0),
    // and other kjudge processes take turns through the machine-wide GPU lock.
    while (in_flight_.load() > timing_.load() && !stop_.load())
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::optional<GpuLock> gpu;
    if (!machine_.gpus.empty()) gpu.emplace(machine_.gpus.front().index, 600);
    Run r;
    r.submission_id = p.submission_id;
    r.mode = p.timed_mode;
    r.gpu_type = opt_.gpu_type;
    r.started_us = now_us();
    PackTiming t;
    if (gpu && !gpu->held())
      t.not_timed =
          "the GPU stayed busy with another kjudge timing run for 600 s (lock " + gpu->path() + ")";
    else
      t = time_pack_solution(*p.problem, p.solution, g, opt_.eval, opt_.bench, machine_, &stop_);
    // Interrupted: the job is requeued at the next start (or by abandon()).
    if (dropping() || (stop_.load() && !t.score)) return;
    r.ended_us = now_us();
    r.passed = t.score.has_value();
    r.score = t.score;
    json j = graded_to_json(g);
    j["performance"] = t.perf;
    add_timing_flags(j, t.perf);  // a timing flag holds the run for review as a static one does
    if (!t.score) j["failure"] = "not timed: " + t.not_timed;
    r.result = j.dump();
    r.system_info = json({{"driver", machine_.driver_version},
                          {"cuda", machine_.cuda_version.value_or("")},
                          {"gpus", machine_.gpus.size()}})
                        .dump();
    hold_if_flagged(r, j, p.timed_mode == "leaderboard");
    store_.add_run(r);
    gpu.reset();
    --timing_;
    finish_pack(p);
  }
}

bool JudgeService::judge_task(const Job& job, const Submission& sub) {
  const std::int64_t t0 = now_us();
  auto fail = [&](const std::string& why) {
    if (dropping()) return true;  // left running: abandon() requeues it
    Run r;
    r.submission_id = sub.id;
    r.mode = sub.mode;
    r.started_us = t0;
    r.ended_us = now_us();
    r.result = json({{"failure", why}}).dump();
    store_.add_run(r);
    store_.set_status(sub.id, "done");
    store_.finish(job.id, true);
    announce_finished();
    ++judged_;
    return true;
  };
  TaskSpec task;
  try {
    task = load_task(opt_.tasks.at(sub.target.substr(5)));
  } catch (const std::exception& e) {
    return fail(std::string("the task cannot be read: ") + e.what());
  }
  // kjudge's own harnesses only: the task's own (`task run --harness task`) runs in the
  // submission's process, which can write its report, so it never ranks here.
  const task::HarnessChoice h = task::choose_harness(task, "kjudge");
  if (!h.why_not.empty()) return fail("the service runs tasks with kjudge's harness: " + h.why_not);
  const bool python = h.kind == task::HarnessKind::kjudge_python;
  if (python && (!python_ || !python_->why().empty())) {
    // Claimed before this worker's Python was refused: left for a worker whose Python works.
    store_.requeue(job.id);
    return true;
  }
  if (std::string why = task_unsupported(task, opt_.gpu_type); !why.empty())
    return fail("kjudge refuses this task: " + why);
  // A folder no other judge on this machine can pick: two instances each have a submission 1.
  PrivateDir work;
  try {
    work = PrivateDir::make(fs::temp_directory_path(), "kjudge-serve-task-");
  } catch (const std::exception& e) {
    // The machine's fault (a full or read-only /tmp), never the submitter's: back to the queue.
    std::fprintf(stderr, "kjudge serve: %s\n", e.what());
    store_.requeue(job.id);
    return false;
  }
  const fs::path ws = work.path() / "task";
  task::TaskBuildOptions bo;
  bo.step = opt_.step;
  bo.machine = machine_;
  bo.cache_dir = opt_.eval.use_cache ? opt_.eval.cache_dir : fs::path();
  bo.isolate = opt_.task_isolate;
  task::TaskBuild build;
  try {
    if (python) {
      // Nothing to compile, as in `kjudge task run`: the checker imports the task's reference,
      // the worker the submission.
      task::stage_task_files(task, store_.code(sub.code_id), ws);
      build.harness = h.kind;
      build.workspace = ws;
      build.ok = true;
    } else {
      build = task::build_task(task, store_.code(sub.code_id), ws, bo);
    }
  } catch (const std::exception& e) {
    return fail(std::string("the build could not be set up: ") + e.what());
  }
  json compile = {{"ok", build.ok}, {"failure", build.failure}, {"log", build.log}};
  if (!build.ok) {
    return fail("build: " + build.failure);
  }
  // Other kjudge processes on this machine (`task run`, another instance) take turns on the
  // GPU through the same lock.
  std::optional<GpuLock> lock;
  if (sub.mode != "test" && !machine_.gpus.empty()) {
    lock.emplace(machine_.gpus.front().index, 600);
    if (!lock->held()) {
      return fail("judge: the GPU stayed busy with another kjudge timing run for 600 s (lock " +
                  lock->path() + ")");
    }
  }
  task::TaskRunOptions ro;
  ro.step = opt_.step;
  ro.machine = machine_;
  ro.gpu = machine_.gpus.empty() ? -1 : machine_.gpus.front().index;
  ro.isolate = opt_.task_isolate;
  if (python) {
    ro.python = python_->probed()->executable;
    ro.python_paths = python_->probed()->ro_paths;
    ro.python_runner = python_->gpumode_runner();
  }
  for (kj::StopRule* r : {&ro.benchmark_rule, &ro.ranked_rule}) {
    if (opt_.task_max_time > 0) r->max_timed_s = opt_.task_max_time;
    if (opt_.task_max_runs > 0) r->max_runs = opt_.task_max_runs;
  }
  std::optional<std::uint64_t> secret;
  if (sub.leaderboard_id)
    if (auto b = store_.leaderboard(*sub.leaderboard_id))
      secret = static_cast<std::uint64_t>(b->secret_seed);
  // GPU MODE's scheme: the public ranked run is ranked; the run on the board's secret seed is
  // kept as a secret run that only admins see.
  struct Stage {
    std::string mode;
    bool secret;
  };
  std::vector<Stage> stages = {{"test", false}};
  if (sub.mode == "benchmark") stages.push_back({"benchmark", false});
  if (sub.mode == "leaderboard") {
    stages.push_back({"leaderboard", false});
    if (secret) stages.push_back({"leaderboard", true});
  }
  for (const auto& st : stages) {
    ro.secret_seed = st.secret ? secret : std::nullopt;
    const std::int64_t s0 = now_us();
    task::ModeRun mr = task::run_task_mode(task, build, st.mode, ro);
    // A harness that did not run to its end may have died of the job's SIGTERM.
    if (dropping() || (opt_.stopping && !mr.completed && stopping_soon())) {
      return true;  // left running: abandon() requeues it
    }
    // Its output names a machine fault and the judge's own probe agrees: the machine's, not the
    // submitter's. Nothing is recorded; the job waits for a worker with a GPU that works.
    if (!mr.passed && !machine_fault(mr.failure + "\n" + mr.log).empty() && !task_gpu_->recheck()) {
      store_.requeue(job.id);
      return false;
    }
    json j = to_json(mr, task);
    j["compilation"] = compile;
    // The harness says torch found no usable GPU, and the judge's own check of the interpreter
    // (no submission code) agrees: the machine's fault, stored so, never charged. The check
    // alone decides: the words can be the submission's.
    if (python && !mr.passed && reads_as_gpu_unusable(mr.failure + "\n" + mr.log) &&
        !python_->recheck_gpu(ro.gpu)) {
      j["verdict"] = "env_error";
      j["charged"] = false;
      j["env_error"] = python_->why();
      std::fprintf(stderr, "kjudge serve: Python tasks and KernelBench refused: %s\n",
                   python_->why().c_str());
      finish_job(job, sub, s0, st.mode, j.dump(), false);
      return true;
    }
    Run r;
    r.submission_id = sub.id;
    r.mode = st.mode;
    r.secret = st.secret;
    r.gpu_type = opt_.gpu_type;
    r.passed = mr.completed && mr.passed;
    if (j.contains("score_us")) r.score = j["score_us"].get<double>();
    r.started_us = s0;
    r.ended_us = now_us();
    r.result = j.dump();
    hold_if_flagged(r, j, sub.leaderboard_id.has_value());
    store_.add_run(r);
    if (!r.passed) break;
  }
  store_.set_status(sub.id, "done");
  store_.finish(job.id, true);
  announce_finished();
  ++judged_;
  return true;
}

void JudgeService::finish_job(const Job& job, const Submission& sub, std::int64_t t0,
                              const std::string& mode, const std::string& result, bool passed) {
  Run r;
  r.submission_id = sub.id;
  r.mode = mode;
  r.gpu_type = opt_.gpu_type;
  r.passed = passed;
  r.started_us = t0;
  r.ended_us = now_us();
  r.result = result;
  r.system_info = json({{"driver", machine_.driver_version},
                        {"cuda", machine_.cuda_version.value_or("")},
                        {"gpus", machine_.gpus.size()}})
                      .dump();
  store_.add_run(r);
  store_.set_status(sub.id, "done");
  store_.finish(job.id, true);
  announce_finished();
  ++judged_;
}

void JudgeService::judge_kernelbench_job(const Job& job, const Submission& sub) {
  const std::int64_t t0 = now_us();
  std::string set;
  std::string why;
  const kernelbench::Problem* problem =
      find_kernelbench_problem(opt_.kernelbench, sub.target, &why, &set);
  if (!problem) {
    finish_job(
        job, sub, t0, sub.mode,
        json({{"verdict", "judge_error"}, {"detail", "the target is unusable: " + why}}).dump(),
        false);
    return;
  }
  if (!python_ || !python_->why().empty()) {
    store_.requeue(job.id);  // claimed before this worker's Python was refused
    return;
  }
  // Level 4 without a model cache here (a PostgreSQL queue: SQLite refused it at submission):
  // the judge's own finding, not a run's report, so not run and not charged, as `kernelbench
  // eval` does.
  if (std::string hf_why; problem->needs_hf() && kernelbench::hf_cache("", &hf_why).empty()) {
    finish_job(job, sub, t0, sub.mode,
               json({{"kind", "kjudge-kernelbench-result"},
                     {"key", problem->key() + "#0"},
                     {"verdict", "env_error"},
                     {"detail", "not run (not charged): " + hf_why},
                     {"charged", false},
                     {"target", sub.target}})
                   .dump(),
               false);
    return;
  }
  KernelBenchJobOptions o;
  o.data_dir = opt_.kernelbench.at(set).dir;
  o.python = python_->probed()->executable;
  o.step = opt_.step;
  o.sandbox_mode = opt_.step.sandbox ? "bwrap" : "none";
  o.gpu = task_gpu_index();
  o.speedup = sub.mode == "benchmark";
  if (!opt_.eval.cache_dir.empty()) {
    o.extension_cache = opt_.eval.cache_dir / "kernelbench";
    o.bytecode_cache = opt_.eval.cache_dir / "python-bytecode";
  }
  o.work_root = opt_.eval.work_root;
  KernelBenchJobResult k = judge_kernelbench(*problem, store_.code(sub.code_id), o);
  if (dropping()) return;  // left running: abandon() requeues it
  // The runner's env_error (its setup found no torch or no GPU) is taken only when the judge's
  // own check of the interpreter agrees: a report the submission forged to skip its reward would
  // otherwise pass for the machine's fault. When the check passes, the run is refused, charged.
  if (k.verdict == "env_error") {
    if (!python_->recheck_gpu(o.gpu)) {
      k.result["env_error"] = python_->why();
      std::fprintf(stderr, "kjudge serve: Python tasks and KernelBench refused: %s\n",
                   python_->why().c_str());
    } else {
      k.result["reported_verdict"] = k.verdict;
      k.verdict = "refused";
      k.result["verdict"] = k.verdict;
      k.result["detail"] = "the run reported the machine's fault (" +
                           k.result.value("detail", std::string()) +
                           "), but the judge's own check of the interpreter and the GPU passed";
    }
  }
  k.result["charged"] = kernelbench::verdict_from_name(k.verdict).has_value()
                            ? kernelbench::charged(*kernelbench::verdict_from_name(k.verdict))
                            : false;
  k.result["target"] = sub.target;
  finish_job(job, sub, t0, sub.mode, k.result.dump(), k.verdict == "correct");
}

}  // namespace kjudge::board
