// kjudge doctor: what this machine can judge, and what to fix.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/load.h"
#include "cli/sanitizer_options.h"
#include "core/exit_codes.h"
#include "eval/build_cache.h"
#include "eval/env_check.h"
#include "eval/sanitizer.h"
#include "perf/benchmarker.h"
#include "run/main_return.h"
#include "task/python_check.h"

namespace kjudge {
namespace {

struct DoctorArgs {
  std::string problems;
  ProblemFilter filter;
  bool json = false;
  bool no_probe = false;
  std::string cache_dir;
  std::vector<std::string> sanitize;  // with --memcheck: compute-sanitizer must be there
  bool memcheck = false;
  std::string sanitizer;
  bool python_tasks = false;  // check the Python GPU MODE's Python tasks run in
  std::string python;
};

// The interpreter of GPU MODE's Python tasks (`lang: py`): torch that sees a GPU, and triton
// (a warning only: PyTorch and CUDA-inline submissions run without it).
std::vector<EnvCheck> python_task_checks(const std::string& name) {
  EnvCheck py;
  py.name = "python (tasks)";
  EnvCheck tr;
  tr.name = "triton (tasks)";
  try {
    const task::TaskPython p = task::probe_task_python(name);
    const std::string why = task::task_python_problem(p, true);
    py.status = why.empty() ? CheckStatus::ok : CheckStatus::fail;
    py.detail = why.empty() ? p.executable + " (Python " + p.version + "), torch " + p.torch +
                                  ", " + std::to_string(p.gpus) + " GPU(s)"
                            : why;
    if (!why.empty())
      py.advice = "--python PATH or $KJUDGE_PYTHON: an interpreter with torch built for CUDA";
    tr.status = p.triton.empty() ? CheckStatus::warn : CheckStatus::ok;
    tr.detail = p.triton.empty() ? "no triton in " + p.executable + ": Triton submissions fail"
                                 : "triton " + p.triton;
  } catch (const std::exception& e) {
    py.status = CheckStatus::fail;
    py.detail = e.what();
    py.advice = "--python PATH or $KJUDGE_PYTHON";
    return {py};
  }
  return {py, tr};
}

// Without a pack, probe the libraries ComputeEval's releases link against.
Problem typical_problem() {
  Problem p;
  p.task_id = "doctor/typical";
  p.build_command =
      "nvcc -I include -o test.out solution.cu test/*.cu -lcublas -lcublasLt -lcurand -lcusolver "
      "-lcusparse -lcufft -lnvrtc -lcuda -lcudnn";
  return p;
}

int doctor(const DoctorArgs& a) {
  std::vector<Problem> problems;
  if (!a.problems.empty()) {
    LoadReport report;
    problems = filter_problems(read_problems_any(a.problems, &report), a.filter);
    print_load_errors(report);
  } else {
    problems.push_back(typical_problem());
  }
  std::vector<const Problem*> ps;
  for (const auto& p : problems) ps.push_back(&p);
  MachineInfo m = probe_machine();
  EnvCheckOptions eo;
  eo.probe_build = !a.no_probe;
  eo.cache_dir = a.cache_dir.empty() ? default_cache_dir() : std::filesystem::path(a.cache_dir);
  std::vector<std::string> tools = a.sanitize;
  if (a.memcheck) tools.push_back("memcheck");
  eo.sanitize = parse_sanitizer_tools(tools);
  eo.sanitizer = a.sanitizer;
  auto checks = check_environment(m, ps, eo);
  {
    // --benchmark times profiler modes through this library (built where CUPTI is installed).
    EnvCheck prof;
    prof.name = "profiler";
    const std::filesystem::path lib = locate_profiler();
    if (lib.empty()) {
      prof.status = CheckStatus::warn;
      prof.detail =
          "libkjudge_profiler.so not found; needed for --benchmark (all timing modes "
          "but custom)";
      prof.advice = "build on a machine with CUPTI (the CUDA toolkit) or set KJUDGE_PROFILER";
    } else {
      prof.detail = lib.string();
    }
    checks.push_back(prof);
  }
  {
    // Every test run of a ComputeEval-style problem carries it (run/main_return.h).
    EnvCheck guard;
    guard.name = "main guard";
    const std::filesystem::path lib = locate_main_guard();
    if (lib.empty()) {
      guard.status = CheckStatus::warn;
      guard.detail =
          "libkjudge_main_guard.so not found: a test program that exits 0 before its main() "
          "returns would count as a pass";
      guard.advice = "keep lib/libkjudge_main_guard.so beside kjudge, or set KJUDGE_MAIN_GUARD";
    } else {
      guard.detail = lib.string();
    }
    checks.push_back(guard);
  }
  if (a.python_tasks || !a.python.empty())
    for (auto& c : python_task_checks(a.python.empty() ? task::default_task_python() : a.python))
      checks.push_back(std::move(c));
  if (a.json) {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& c : checks)
      arr.push_back({{"name", c.name},
                     {"status", c.status == CheckStatus::ok     ? "ok"
                                : c.status == CheckStatus::warn ? "warn"
                                                                : "fail"},
                     {"detail", c.detail},
                     {"advice", c.advice}});
    fmt::print("{}\n", nlohmann::json{{"schema_version", 1},
                                      {"kind", "kjudge-doctor"},
                                      {"ok", !any_failed(checks)},
                                      {"checks", arr}}
                           .dump(2));
  } else {
    fmt::print("{}", format_checks(checks));
    if (any_failed(checks))
      fmt::print("kjudge cannot judge these problems here until the FAIL lines are fixed\n");
    else
      fmt::print("ready\n");
  }
  return any_failed(checks) ? exit_code::environment : exit_code::ok;
}

}  // namespace

void add_doctor_command(CLI::App& app, int& rc) {
  auto a = std::make_shared<DoctorArgs>();
  auto* d = app.add_subcommand("doctor",
                               "Check this machine: nvcc, GPUs, the packs' build flags, "
                               "tools of later stages");
  d->add_option("--problems", a->problems, "Check the build flags this pack uses");
  add_filter_options(d, a->filter);
  d->add_flag("--json", a->json, "JSON on stdout");
  d->add_flag("--no-probe", a->no_probe, "Skip compiling the probe program");
  d->add_option("--cache-dir", a->cache_dir, "Build cache to check");
  add_sanitizer_options(d, a->sanitize, a->memcheck, a->sanitizer);
  d->add_flag("--python-tasks", a->python_tasks,
              "Check the Python of GPU MODE's Python tasks (torch with a GPU, triton)");
  d->add_option("--python", a->python,
                "That interpreter (default $KJUDGE_PYTHON or python3; implies --python-tasks)");
  d->callback([a, &rc] { rc = doctor(*a); });
}

}  // namespace kjudge
