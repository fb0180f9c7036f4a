#include "task/own_harness.h"

#include <chrono>
#include <optional>

#include "core/shell_quote.h"
#include "run/cloexec_file.h"
#include "run/result_channel.h"
#include "task/mode_cases.h"
#include "task/python_step.h"
#include "task/stage.h"
#include "task/step_failure.h"

namespace kjudge::task {

namespace fs = std::filesystem;

std::string own_cuda_build_command(const TaskSpec& task, const std::string& arch,
                                   const std::string& nvcc) {
  std::string compute = arch;
  if (compute.rfind("sm_", 0) == 0) compute = "compute_" + compute.substr(3);
  // GPU MODE's runner's flags (kernelbot's CUDA_FLAGS), with ptxas's usage report kept so the
  // build shows the kernels' registers and spills as kjudge's own builds do.
  std::string cmd = shell_quote(nvcc) +
                    " -std=c++20 -DNDEBUG -Xcompiler=-Wno-psabi -Xcompiler=-fno-strict-aliasing "
                    "--expt-extended-lambda --expt-relaxed-constexpr "
                    "-forward-unknown-to-host-compiler -O3 -Xptxas=-v -Xptxas=--warn-on-spills "
                    "-gencode arch=" +
                    shell_quote(compute) + ",code=" + shell_quote(arch) + " -I.";
  for (const auto& d : task.include_dirs) cmd += " -I" + shell_quote(d);
  for (const auto& [name, value] : task.defines)
    cmd += " " + shell_quote("-D" + name + (value.empty() ? "" : "=" + value));
  for (const auto& f : task.compile_flags) cmd += " " + shell_quote(f);
  for (const auto& s : task.sources) cmd += " " + shell_quote(s);
  cmd += " -o eval.out -lcuda";
  for (const auto& l : task.libraries) cmd += " -l" + shell_quote(l);
  return cmd + "\n";
}

TaskBuild build_own_harness(const TaskSpec& task, const std::string& submission_text,
                            const fs::path& dir, const TaskBuildOptions& opt) {
  TaskBuild b;
  b.harness = opt.harness;
  b.workspace = dir;
  stage_task_files(task, submission_text, dir, {"eval.out"});
  if (opt.harness == HarnessKind::task_python) {
    b.ok = true;  // nothing to compile: eval.py imports the submission when it runs
    return b;
  }
  b.arch = task_arch(opt.machine, opt.arch);
  if (opt.machine.nvcc_path.empty()) {
    b.failure = "nvcc was not found (see `kjudge doctor`)";
    b.judge_fault = true;
    return b;
  }
  b.command = own_cuda_build_command(task, b.arch, opt.machine.nvcc_path);
  const auto t0 = std::chrono::steady_clock::now();
  const ProcessResult r = run_step(opt.step, opt.machine, b.command, dir, opt.timeout_s);
  b.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  b.log = r.output;
  b.kernels = parse_ptxas_usage(r.output);
  if (note_build_outcome(r, opt.timeout_s, b)) {
    b.ok = true;
    b.binary = dir / "eval.out";
  }
  return b;
}

std::vector<std::string> own_harness_argv(const TaskSpec& task, HarnessKind kind,
                                          const std::string& python, const std::string& mode,
                                          const std::string& cases_file) {
  if (kind == HarnessKind::task_python) return {python, task.main, mode, cases_file};
  return {"./eval.out", mode, cases_file};
}

void add_popcorn_json(const ModeRun& run, const TaskSpec& task, nlohmann::json& j) {
  if (!run.popcorn) return;
  const PopcornRecord& p = *run.popcorn;
  const std::vector<TaskCase>& shown = run.mode == "test" ? task.tests : task.benchmarks;
  auto spec = [&](std::size_t i, const PopcornCase& c) {
    return i < shown.size() && run.mode != "profile" ? shown[i].text() : c.spec;
  };
  if (!p.tests.empty()) {
    nlohmann::json tests = nlohmann::json::array();
    for (std::size_t i = 0; i < p.tests.size(); ++i) {
      const PopcornCase& c = p.tests[i];
      nlohmann::json x = {{"spec", spec(i, c)}, {"status", c.passed() ? "pass" : "fail"}};
      if (!c.error.empty()) x["error"] = c.error;
      if (!c.message.empty()) x["message"] = c.message;
      tests.push_back(x);
    }
    j["tests"] = tests;
  }
  if (!p.benchmarks.empty()) {
    nlohmann::json benches = nlohmann::json::array();
    std::vector<double> means;
    nlohmann::json reports = nlohmann::json::array();
    for (std::size_t i = 0; i < p.benchmarks.size(); ++i) {
      const PopcornCase& c = p.benchmarks[i];
      nlohmann::json x = {{"spec", spec(i, c)}, {"status", c.passed() ? "pass" : "fail"}};
      if (!c.error.empty()) x["error"] = c.error;
      // Only the figures the harness gave: a key left out, never a null.
      auto put_us = [&](const char* key, const std::optional<double>& ns) {
        if (ns) x[key] = *ns / 1e3;
      };
      if (c.mean) {
        if (c.runs) x["runs"] = static_cast<long>(*c.runs);
        put_us("mean_us", c.mean);
        put_us("std_us", c.std);
        put_us("err_us", c.err);
        if (c.err && *c.mean > 0) x["rel_err"] = *c.err / *c.mean;
        put_us("best_us", c.best);
        put_us("worst_us", c.worst);
        if (c.passed()) means.push_back(*c.mean / 1e3);
      }
      if (!c.report.empty()) reports.push_back({{"spec", spec(i, c)}, {"report", c.report}});
      benches.push_back(x);
    }
    if (run.mode != "profile") j["benchmarks"] = benches;
    if (!reports.empty()) j["profile_report"] = reports;
    if (run.passed && run.mode != "profile" && means.size() == p.benchmarks.size())
      if (auto score = task_score(task.ranking_by, means)) {
        j["score_us"] = *score;
        j["ranking_by"] = to_string(task.ranking_by);
      }
  }
  if (!p.odd.empty()) j["popcorn_odd_lines"] = p.odd;
}

ModeRun run_own_harness_mode(const TaskSpec& task, const TaskBuild& build, const std::string& mode,
                             const TaskRunOptions& opt) {
  ModeRun run;
  run.mode = mode;
  run.harness = "task";
  const bool ranked = mode == "leaderboard";
  // GPU MODE's runner hands the harness the tests in test mode and the benchmarks otherwise.
  const auto picked = mode_cases(task, mode, opt.profile_case, run.failure);
  if (!picked) return run;
  const std::vector<TaskCase>& cases = *picked;
  const std::string cases_name = "cases-" + mode + ".txt";
  // The public seeds: the harness combines them with POPCORN_SEED itself. GPU MODE's readers
  // take every line as a case, so the last one has no newline after it.
  std::string text = task_cases_text(cases, std::nullopt);
  if (!text.empty() && text.back() == '\n') text.pop_back();
  write_file_cloexec(build.workspace / cases_name, text);

  std::optional<ResultChannel> channel;
  try {
    channel.emplace("kjudge-popcorn");
  } catch (const std::exception& e) {
    run.failure = std::string("judge: ") + e.what();
    return run;
  }
  StepExtras extras;
  if (opt.gpu >= 0) extras.env.push_back("CUDA_VISIBLE_DEVICES=" + std::to_string(opt.gpu));
  extras.env.push_back("POPCORN_FD=" + std::to_string(channel->fd()));
  if (ranked && opt.secret_seed)
    extras.env.push_back("POPCORN_SEED=" + std::to_string(*opt.secret_seed));
  extras.inherit_fds.push_back(channel->fd());
  if (build.harness == HarnessKind::task_python) {
    extras.ro_paths = opt.python_paths;
    extras.env.push_back("PYTHONDONTWRITEBYTECODE=1");
    add_python_task_env(extras, opt.python, build.workspace);
  }
  extras.argv = own_harness_argv(task, build.harness, opt.python, mode, cases_name);
  std::string command;
  for (const auto& a : extras.argv) command += (command.empty() ? "" : " ") + a;
  const double timeout = mode == "test" ? task.test_timeout_s
                         : ranked       ? task.ranked_timeout_s
                                        : task.benchmark_timeout_s;
  const auto t0 = std::chrono::steady_clock::now();
  const ProcessResult r =
      run_step(opt.step, opt.machine, command, build.workspace, timeout, extras);
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  run.log = r.output;
  if (auto why = harness_step_failure(r, timeout, mode, "the task's harness",
                                      first_output_line(r.output))) {
    run.failure = *why;
    return run;
  }
  run.popcorn = parse_popcorn_record(channel->read_all());
  // eval.py exits 112 on a failed check and still writes its lines; any other status without a
  // check line is the harness failing (111: no POPCORN_FD, 113: a bad case line, 2: usage).
  if (run.popcorn->check.empty() && r.exit_code != 0) {
    run.failure = "the task's harness exited " + std::to_string(r.exit_code) + ": " +
                  first_output_line(r.output);
    return run;
  }
  run.completed = !run.popcorn->check.empty();
  const PopcornVerdict v = popcorn_verdict(*run.popcorn, mode, cases);
  run.passed = v.passed;
  run.failure = v.failure;
  return run;
}

}  // namespace kjudge::task
