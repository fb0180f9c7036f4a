#include "eval/step_runner.h"

#include <unistd.h>

#include <algorithm>
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
  if (!settings.sandbox) {
    std::vector<std::string> env;
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
  return run_sandboxed(
      policy,
      extras.argv.empty() ? std::vector<std::string>{"/bin/sh", "-c", command} : extras.argv,
      timeout_s, settings.log_cap);
}

std::optional<MainGuard> attach_main_guard(const fs::path& library, const fs::path& workspace,
                                           const std::optional<std::vector<std::string>>& words,
                                           StepExtras& extras) {
  if (library.empty() || !words || !main_guard_unfit(workspace, words->front()).empty())
    return std::nullopt;
  std::optional<MainGuard> guard(std::in_place, library);
  extras.argv = *words;
  for (std::string& e : guard->env()) extras.env.push_back(std::move(e));
  extras.preload.push_back(guard->library());
  extras.inherit_fds.push_back(guard->fd());
  return guard;
}

std::optional<std::vector<std::string>> simple_command_words(const std::string& command) {
  static const std::string kShellSyntax = "|&;<>()$`\\\"'*?[]#~=%{}!\n";
  if (command.find_first_of(kShellSyntax) != std::string::npos) return std::nullopt;
  std::vector<std::string> words;
  std::size_t i = 0;
  while (i < command.size()) {
    i = command.find_first_not_of(" \t", i);
    if (i == std::string::npos) break;
    std::size_t e = command.find_first_of(" \t", i);
    if (e == std::string::npos) e = command.size();
    words.push_back(command.substr(i, e - i));
    i = e;
  }
  if (words.empty()) return std::nullopt;
  return words;
}

}  // namespace kjudge
