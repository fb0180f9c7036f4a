#include "task/build.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "core/input_error.h"
#include "core/read_file.h"
#include "core/shell_quote.h"
#include "eval/build_cache.h"
#include "eval/harness_files.h"
#include "eval/solution_rules.h"
#include "eval/start_code_scan.h"
#include "eval/symbol_scan.h"
#include "run/beside_binary.h"
#include "run/cloexec_file.h"
#include "task/step_failure.h"

namespace kjudge::task {

namespace fs = std::filesystem;

namespace {

std::string object_name(const std::string& source) {
  std::string o = source;
  for (char& c : o)
    if (c == '/') c = '_';
  return o + ".o";
}

}  // namespace

std::string task_arch(const MachineInfo& machine, const std::string& requested) {
  if (!requested.empty()) return requested;
  for (const auto& g : machine.gpus) {
    std::string cc = g.compute_cap;  // "9.0"
    std::size_t dot = cc.find('.');
    if (dot == std::string::npos) continue;
    std::string digits = cc.substr(0, dot) + cc.substr(dot + 1);
    bool specific = cc == "9.0" || cc.rfind("10.", 0) == 0;
    return "sm_" + digits + (specific ? "a" : "");
  }
  return "sm_90a";
}

namespace {

// nvcc with the task's flags, as every compile and link of a task build runs it.
std::string task_nvcc(const TaskSpec& task, const std::string& arch, const std::string& nvcc) {
  std::string compute = arch;
  if (compute.rfind("sm_", 0) == 0) compute = "compute_" + compute.substr(3);
  std::string flags = "-std=c++20 -O3 -lineinfo -gencode arch=" + shell_quote(compute) +
                      ",code=" + shell_quote(arch) + " -I.";
  for (const auto& d : task.include_dirs) flags += " -I" + shell_quote(d);
  for (const auto& [name, value] : task.defines)
    flags += " " + shell_quote("-D" + name + (value.empty() ? "" : "=" + value));
  for (const auto& f : task.compile_flags) flags += " " + shell_quote(f);
  return shell_quote(nvcc) + " " + flags;
}

// The harness's objects, each compiled in the background (`$harness`, `$checker`, `$worker`).
// The isolated run's two programs: the checker is the harness built without the submission (and
// without the task's sources, which may call into it: its reference must be in its headers, as
// every example task's is); the worker is the submission with the worker loop.
std::string harness_compiles(const std::string& cc, bool isolate) {
  std::string cmd = cc + " -c kjudge_harness.cu -o kjudge_harness.o &\nharness=$!\n";
  if (isolate)
    cmd += cc + " -DKJ_CHECKER -c kjudge_harness.cu -o kjudge_checker.o &\nchecker=$!\n" + cc +
           " -c kjudge_worker.cu -o kjudge_worker.o &\nworker=$!\n";
  return cmd;
}

std::string task_command(const TaskSpec& task, const std::string& arch, const std::string& nvcc,
                         bool isolate, bool harness_built) {
  const std::string cc = task_nvcc(task, arch, nvcc);
  const std::string submission = task.submission_file()->name;
  bool submission_compiled = false;
  for (const auto& s : task.sources) submission_compiled |= s == submission;

  // The harness compiles in the background while the task's own sources and the submission do.
  std::string cmd = "set -e\n";
  if (!harness_built) cmd += harness_compiles(cc, isolate);
  const auto wait_for = [&](const char* job) {
    return harness_built ? std::string() : std::string("wait $") + job + "\n";
  };
  std::string objects;
  for (const auto& s : task.sources) {
    const bool report = s == submission || !submission_compiled;
    cmd += cc + (report ? " -Xptxas=-v" : "") + " -c " + shell_quote(s) + " -o " +
           shell_quote(object_name(s)) + "\n";
    objects += " " + shell_quote(object_name(s));
  }
  std::string libs;
  for (const auto& l : task.libraries) libs += " -l" + shell_quote(l);
  cmd += wait_for("harness") + cc + " kjudge_harness.o" + objects + " -o kjudge_task" + libs + "\n";
  if (isolate) {
    cmd += wait_for("checker") + cc + " kjudge_checker.o -o kjudge_checker" + libs;
    // Isolation is the default, so a task whose reference calls into a source of its own fails
    // here without having asked for anything: the log says what to do.
    bool task_sources = false;
    for (const auto& s : task.sources) task_sources |= s != submission;
    if (task_sources)
      cmd +=
          " || { echo 'kjudge: kjudge_checker, the harness of an isolated run, links none of the "
          "sources of task.yml (config.sources): a reference that calls into them runs only "
          "with --no-isolate' >&2; exit 1; }";
    cmd += "\n" + wait_for("worker") + cc + " kjudge_worker.o" + objects + " -o kjudge_worker" +
           libs + "\n";
  }
  return cmd;
}

}  // namespace

std::string task_build_command(const TaskSpec& task, const std::string& arch,
                               const std::string& nvcc, bool isolate) {
  return task_command(task, arch, nvcc, isolate, false);
}

std::string task_harness_command(const TaskSpec& task, const std::string& arch,
                                 const std::string& nvcc, bool isolate) {
  std::string cmd =
      "set -e\n" + harness_compiles(task_nvcc(task, arch, nvcc), isolate) + "wait $harness\n";
  if (isolate) cmd += "wait $checker\nwait $worker\n";
  return cmd;
}

std::string task_build_command_on_harness(const TaskSpec& task, const std::string& arch,
                                          const std::string& nvcc, bool isolate) {
  return task_command(task, arch, nvcc, isolate, true);
}

void write_task_workspace(const TaskSpec& task, const std::string& submission_text,
                          const fs::path& dir) {
  fs::create_directories(dir);
  std::set<std::string> harness_names;
  for (const auto& h : harness_files()) {
    harness_names.insert(h.name);
    fs::create_directories((dir / h.name).parent_path());
    write_file_cloexec(dir / h.name, h.text);
  }
  for (const auto& f : task.files) {
    if (harness_names.count(f.name) || f.name == "kjudge_task" || f.name == "kjudge_checker" ||
        f.name == "kjudge_worker" || f.name.rfind("kjudge/", 0) == 0)
      throw InputError(task.yml.string(), 0, "files",
                       "'" + f.name + "' is a name kjudge's harness uses; rename the file");
    fs::create_directories((dir / f.name).parent_path());
    write_file_cloexec(dir / f.name, f.submission ? submission_text : read_input_file(f.source));
  }
}

namespace {

// The harness's objects depend on the task, its flags and the toolkit, never on the submission:
// built once per task in a workspace without the submission, kept in the cache, and copied into
// each build, which then compiles only the submission and links. False when they did not build
// there (a task that does not compile, a timeout under load): the whole build then runs as
// without a cache, and its log says what failed.
bool copy_in_harness_objects(const TaskSpec& task, const std::string& arch,
                             const TaskBuildOptions& opt, const BuildCache& cache,
                             const fs::path& dir) {
  const fs::path hdir = dir.parent_path() / (dir.filename().string() + ".harness");
  std::error_code ec;
  fs::remove_all(hdir, ec);
  write_task_workspace(task, "", hdir);
  const std::string cmd = task_harness_command(task, arch, opt.machine.nvcc_path, opt.isolate);
  const FileHashes before = hash_tree(hdir);
  const std::string key =
      BuildCache::key(cmd, opt.machine.nvcc_version_line + " task-harness " + arch, before);
  bool built = false;
  if (auto hit = cache.restore(key, hdir); hit && hit->exit_code == 0) {
    built = true;
  } else {
    const auto t0 = std::chrono::steady_clock::now();
    ProcessResult r = run_step(opt.step, opt.machine, cmd, hdir, opt.timeout_s);
    if (r.ok()) {
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      cache.store(key, hdir, before, {0, r.output, r.truncated, r.output_bytes, seconds});
      built = true;
    }
  }
  std::vector<std::string> objects = {"kjudge_harness.o"};
  if (opt.isolate) objects.insert(objects.end(), {"kjudge_checker.o", "kjudge_worker.o"});
  for (const std::string& o : objects) {
    if (!built) break;
    built = fs::is_regular_file(hdir / o, ec) &&
            fs::copy_file(hdir / o, dir / o, fs::copy_options::overwrite_existing, ec);
  }
  fs::remove_all(hdir, ec);
  return built;
}

}  // namespace

// A program that runs code of its own before the harness's .preinit_array entry could read the
// result channel and forge the report (start_code_scan.h): it is refused as a build failure.
static void check_start_code(TaskBuild& b) {
  try {
    const auto reasons = code_before_harness(b.binary);
    if (reasons.empty()) return;
    b.ok = false;
    b.failure = "refused: the program runs code before the harness takes its result channel: ";
    for (std::size_t i = 0; i < reasons.size(); ++i) b.failure += (i ? "; " : "") + reasons[i];
  } catch (const std::exception& e) {
    b.ok = false;
    b.failure = std::string("judge: cannot inspect the built program: ") + e.what();
    b.judge_fault = true;
  }
}

// The harness is linked into the submission's program, and the profiler is preloaded into it: a
// submission object that defines a name their code relies on (write, getenv, clock_gettime,
// cudaEventElapsedTime …) would take those calls (symbol_scan.h). It is refused like code
// ahead of the harness.
static void check_submission_symbols(TaskBuild& b, const TaskSpec& task, const fs::path& dir,
                                     const fs::path& nvcc) {
  if (!b.ok) return;
  try {
    const std::set<std::string> relied = judge_relied_names(
        {dir / "kjudge_harness.o", dir / "kjudge_worker.o", dir / "kjudge_checker.o",
         locate_beside_binary("KJUDGE_PROFILER", "libkjudge_profiler.so")},
        cuda_libraries(nvcc));
    // The submission's own object; where it is not compiled on its own, a header of it is part
    // of the units that include it: the task's sources, or the harness's.
    const std::string submission = task.submission_file()->name;
    std::vector<fs::path> objects;
    if (std::find(task.sources.begin(), task.sources.end(), submission) != task.sources.end()) {
      objects.push_back(dir / object_name(submission));
    } else {
      for (const auto& s : task.sources) objects.push_back(dir / object_name(s));
      objects.push_back(dir / "kjudge_harness.o");
    }
    std::set<std::string> found;
    for (const fs::path& o : objects)
      for (std::string& n : interposed_names(o, relied, true)) found.insert(std::move(n));
    const std::vector<std::string> names(found.begin(), found.end());
    if (names.empty()) return;
    b.ok = false;
    b.failure = "refused: the submission ";
    for (std::size_t i = 0; i < names.size(); ++i) b.failure += (i ? ", " : "") + names[i];
    b.failure +=
        ": a name the C library, the CUDA runtime or kjudge's harness and profiler rely on, "
        "which their calls would reach instead";
  } catch (const std::exception& e) {
    b.ok = false;
    b.failure = std::string("judge: cannot inspect the submission's object: ") + e.what();
    b.judge_fault = true;
  }
}

static void set_programs(TaskBuild& b, const fs::path& dir, bool isolate) {
  b.binary = dir / "kjudge_task";
  if (isolate) {
    b.checker = dir / "kjudge_checker";
    b.worker = dir / "kjudge_worker";
  }
}

TaskBuild build_task(const TaskSpec& task, const std::string& submission_text, const fs::path& dir,
                     const TaskBuildOptions& opt) {
  TaskBuild b;
  b.workspace = dir;
  b.arch = task_arch(opt.machine, opt.arch);
  if (opt.machine.nvcc_path.empty()) {
    b.failure = "nvcc was not found (see `kjudge doctor`)";
    b.judge_fault = true;
    return b;
  }
  if (const std::size_t limit = SolutionLimits{}.max_bytes; submission_text.size() > limit) {
    b.failure = "refused: the submission is " + std::to_string(submission_text.size()) +
                " bytes; the limit is " + std::to_string(limit);
    return b;
  }
  write_task_workspace(task, submission_text, dir);
  b.command = task_build_command(task, b.arch, opt.machine.nvcc_path, opt.isolate);
  std::optional<BuildCache> cache;
  FileHashes before;
  std::string key;
  if (!opt.cache_dir.empty()) {
    cache.emplace(opt.cache_dir);
    before = hash_tree(dir);
    key = BuildCache::key(b.command, opt.machine.nvcc_version_line + " task " + b.arch, before);
    if (auto hit = cache->restore(key, dir); hit && hit->exit_code == 0) {
      b.from_cache = true;
      b.log = hit->log;
      b.seconds = hit->seconds;
      b.kernels = parse_ptxas_usage(hit->log);
      b.ok = true;
      set_programs(b, dir, opt.isolate);
      check_start_code(b);
      check_submission_symbols(b, task, dir, opt.machine.nvcc_path);
      return b;
    }
  }
  // What runs: the submission's compile and the links on the harness's kept objects where a
  // cache holds them; the key above stays the whole build's.
  std::string command = b.command;
  if (cache && copy_in_harness_objects(task, b.arch, opt, *cache, dir)) {
    command = task_build_command_on_harness(task, b.arch, opt.machine.nvcc_path, opt.isolate);
    b.harness_kept = true;
  }
  auto t0 = std::chrono::steady_clock::now();
  ProcessResult r = run_step(opt.step, opt.machine, command, dir, opt.timeout_s);
  b.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  b.log = r.output;
  b.kernels = parse_ptxas_usage(r.output);
  // Only successful builds are kept: a failure may be the machine's (a timeout under load).
  if (cache && r.ok())
    cache->store(key, dir, before, {0, r.output, r.truncated, r.output_bytes, b.seconds});
  if (note_build_outcome(r, opt.timeout_s, b)) {
    b.ok = true;
    set_programs(b, dir, opt.isolate);
    check_start_code(b);
    check_submission_symbols(b, task, dir, opt.machine.nvcc_path);
  }
  return b;
}

}  // namespace kjudge::task
