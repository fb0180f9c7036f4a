#include "eval/step_runner.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

#include "run/extra_libs.h"
#include "run/sandbox.h"

extern char** environ;

namespace kjudge {

namespace fs = std::filesystem;

fs::path preload_path(const StepSettings& settings, const fs::path& library) {
  return settings.sandbox ? fs::path("/.kjudge/preload") / library.filename() : library;
}

ProcessResult run_step(const StepSettings& settings, const MachineInfo& machine,
                       const std::string& command, const fs::path& workspace, double timeout_s,
                       const StepExtras& given) {
  StepExtras extras = given;
  if (!extras.preload.empty()) {
    std::string list;
    for (const fs::path& lib : extras.preload)
      list += (list.empty() ? "" : ":") + preload_path(settings, lib).string();
    extras.env.push_back("LD_PRELOAD=" + list);
  }
  // Found per step (a few stat calls): a folder installed while a long run goes on counts from
  // the next step, the same moment the build cache's key sees it (Evaluator).
  const std::optional<ExtraLibs> libs = find_extra_libs();
  if (libs) {
    std::vector<std::string> env = extra_libs_env(*libs, !settings.sandbox);
    extras.env.insert(extras.env.begin(), env.begin(), env.end());
    extras.ro_paths.push_back(libs->root);
  }
  std::string path_head;
  for (const fs::path& d : extras.path_dirs) path_head += d.string() + ":";
  if (!settings.sandbox) {
    std::vector<std::string> env;
    if (!path_head.empty()) {
      const char* was = std::getenv("PATH");
      extras.env.push_back("PATH=" + path_head + (was ? was : "/usr/bin:/bin"));
    }
    for (char** e = environ; *e; ++e) {
      bool overridden = false;
      for (const auto& x : extras.env)
        if (std::strncmp(*e, x.c_str(), x.find('=') + 1) == 0) overridden = true;
      if (!overridden) env.emplace_back(*e);
    }
    env.insert(env.end(), extras.env.begin(), extras.env.end());
    ProcessSpec spec;
    spec.argv =
        extras.argv.empty() ? std::vector<std::string>{"/bin/sh", "-c", command} : extras.argv;
    spec.cwd = workspace;
    spec.env = env;
    spec.timeout_s = timeout_s;
    spec.output_cap = settings.log_cap;
    spec.inherit_fds = extras.inherit_fds;
    spec.starved_wall_cap_s = extras.starved_wall_cap_s;
    return run_process(spec);
  }
  SandboxPolicy policy;
  policy.bwrap = settings.bwrap;
  policy.workspace = workspace;
  // Builds see the GPUs too: nvcc -arch=native asks the driver which one it has.
  policy.gpu = !machine.gpus.empty();
  // A toolkit outside /usr (which is always there, read-only) is passed in read-only.
  if (!machine.nvcc_path.empty()) {
    fs::path root = fs::weakly_canonical(machine.nvcc_path).parent_path().parent_path();
    if (root.string().rfind("/usr/", 0) != 0) policy.ro_paths.push_back(root);
  }
  policy.ro_paths.insert(policy.ro_paths.end(), extras.ro_paths.begin(), extras.ro_paths.end());
  for (const fs::path& lib : extras.preload)
    policy.ro_binds.emplace_back(lib, preload_path(settings, lib));
  std::string path = "/usr/local/cuda/bin:/usr/local/bin:/usr/bin:/bin";
  if (!machine.nvcc_path.empty())
    path = fs::path(machine.nvcc_path).parent_path().string() + ":" + path;
  path = path_head + path;
  // The clean environment: what builds and tests need, nothing of the judge's.
  // Temporaries (nvcc's among them) go to the workspace, where the workspace limit counts
  // them; /tmp is a small tmpfs in host memory.
  std::error_code ec;
  fs::create_directories(workspace / ".kjudge-tmp", ec);
  policy.env = {"PATH=" + path, "HOME=/tmp", "TMPDIR=" + (workspace / ".kjudge-tmp").string(),
                "LANG=C.UTF-8"};
  for (const char* var : {"NVCC_APPEND_FLAGS", "NVCC_PREPEND_FLAGS", "NVCC_CCBIN", "CUDA_HOME"})
    if (const char* v = std::getenv(var)) policy.env.push_back(std::string(var) + "=" + v);
  policy.env.insert(policy.env.end(), extras.env.begin(), extras.env.end());
  policy.keep_fds = extras.inherit_fds;
  // CPU time counts every thread: allow all cores for the whole wall-clock limit.
  policy.limits.cpu_s = timeout_s * std::max(1, machine.cpu_count) + 5;
  policy.memory_bytes = settings.memory_limit_bytes;
  policy.starved_wall_cap_s = extras.starved_wall_cap_s;
  policy.stall_wall_cap_s = extras.stall_wall_cap_s;
  policy.condemn_clear_s = extras.condemn_clear_s;
  policy.shared_lost_s = extras.shared_lost_s;
  return run_sandboxed(
      policy,
      extras.argv.empty() ? std::vector<std::string>{"/bin/sh", "-c", command} : extras.argv,
      timeout_s, settings.log_cap);
}

StepExtras problem_step_extras(const Problem& problem, const MachineInfo& machine) {
  StepExtras extras;
  if (problem.type != "cuda_python" || !machine.python_env) return extras;
  const PythonEnv& py = *machine.python_env;
  extras.path_dirs.push_back(py.bin_dir);
  extras.ro_paths.push_back(py.root);
  extras.ro_paths.insert(extras.ro_paths.end(), py.base_dirs.begin(), py.base_dirs.end());
  // No user site (HOME is the sandbox's /tmp, but without the sandbox it is the judge's). No
  // bytecode read from the workspace's __pycache__ folders, which the solution's files could
  // fill with a test module's "cached" code, and none written for a later step to load.
  extras.env.push_back("PYTHONNOUSERSITE=1");
  extras.env.push_back("PYTHONDONTWRITEBYTECODE=1");
  extras.env.push_back("PYTHONPYCACHEPREFIX=/tmp/kjudge-no-pycache");
  return extras;
}

std::optional<MainGuard> attach_main_guard(const fs::path& library, const fs::path& workspace,
                                           const std::optional<SimpleCommand>& command,
                                           StepExtras& extras) {
  if (library.empty() || !command || !main_guard_unfit(workspace, command->argv.front()).empty())
    return std::nullopt;
  std::optional<MainGuard> guard(std::in_place, library);
  extras.argv = command->argv;
  extras.env.insert(extras.env.end(), command->env.begin(), command->env.end());
  for (std::string& e : guard->env()) extras.env.push_back(std::move(e));
  extras.preload.push_back(guard->library());
  extras.inherit_fds.push_back(guard->fd());
  return guard;
}

namespace {

bool is_variable_name(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// Variables the judge itself sets for a step: an assignment to one stays the shell's to make.
bool judge_variable(const std::string& name) {
  for (const char* prefix : {"LD_", "NVTX_", "CUDA_INJECTION", "KJUDGE"})
    if (name.rfind(prefix, 0) == 0) return true;
  return name == "PATH";
}

}  // namespace

std::optional<SimpleCommand> simple_command(const std::string& command) {
  // '=' is allowed: only in a leading assignment does it mean anything to the shell, and a
  // later word keeps it as it is (`--flag=x`).
  static const std::string kShellSyntax = "|&;<>()$`\\\"'*?[]#~%{}!\n";
  if (command.find_first_of(kShellSyntax) != std::string::npos) return std::nullopt;
  SimpleCommand out;
  std::size_t i = 0;
  while (i < command.size()) {
    i = command.find_first_not_of(" \t", i);
    if (i == std::string::npos) break;
    std::size_t e = command.find_first_of(" \t", i);
    if (e == std::string::npos) e = command.size();
    std::string word = command.substr(i, e - i);
    i = e;
    const auto eq = word.find('=');
    if (out.argv.empty() && eq != std::string::npos && eq > 0) {
      const std::string name = word.substr(0, eq);
      if (!is_variable_name(name) || judge_variable(name)) return std::nullopt;
      out.env.push_back(std::move(word));
      continue;
    }
    out.argv.push_back(std::move(word));
  }
  if (out.argv.empty()) return std::nullopt;
  return out;
}

}  // namespace kjudge
