#include "eval/python_check.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "eval/python_modules.h"
#include "eval/skip_rules.h"
#include "eval/solution_rules.h"
#include "run/process.h"

namespace kjudge {

namespace fs = std::filesystem;

namespace {

// A problem's own modules: its files' names (`from helpers import x`, the solution's module).
std::set<std::string> own_modules(const Problem& p) {
  std::set<std::string> out;
  auto add = [&](const std::vector<SourceFile>& files) {
    for (const SourceFile& f : files) {
      const fs::path path(f.path);
      out.insert(path.begin()->string() == path.filename().string() ? path.stem().string()
                                                                    : path.begin()->string());
    }
  };
  add(p.test_files);
  add(p.context_files);
  if (p.baseline_solution) add(p.baseline_solution->files);
  return out;
}

struct ModuleUse {
  int problems = 0;
  std::set<std::string> groups;
};

}  // namespace

std::vector<std::string> missing_python_modules(const std::string& python,
                                                const std::vector<std::string>& names) {
  if (names.empty()) return {};
  ProcessSpec spec;
  spec.argv = {python, "-I", "-c",
               "import importlib.util, sys\n"
               "for m in sys.argv[1:]:\n"
               "    try:\n"
               "        found = importlib.util.find_spec(m) is not None\n"
               "    except Exception:\n"
               "        found = False\n"
               "    if not found:\n"
               "        print(m)\n"};
  spec.argv.insert(spec.argv.end(), names.begin(), names.end());
  spec.cwd = "/";
  spec.timeout_s = 60;
  const ProcessResult r = run_process(spec);
  if (!r.ok())
    throw std::runtime_error(fmt::format("{} did not answer which modules it has ({})", python,
                                         !r.started    ? r.error
                                         : r.timed_out ? "timed out"
                                                       : r.output.substr(0, 300)));
  std::vector<std::string> missing;
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) missing.push_back(line);
  return missing;
}

EnvCheck python_check(const MachineInfo& m, const std::vector<const Problem*>& problems) {
  EnvCheck c;
  c.name = "python";
  std::vector<const Problem*> py;
  for (const Problem* p : problems)
    if (p->type == "cuda_python") py.push_back(p);
  if (py.empty()) return c;
  if (!m.python_env) {
    c.status = py.size() == problems.size() ? CheckStatus::fail : CheckStatus::warn;
    c.detail = fmt::format(
        "no Python environment for cuda_python problems; {} selected problems will be skipped",
        py.size());
    c.advice =
        "run scripts/install-python-env (CuPy, cuda-python, numpy, nvtx, pytest), or set "
        "KJUDGE_PYTHON_ENV to an environment that has them";
    return c;
  }
  const std::string python = (m.python_env->bin_dir / "python").string();
  std::map<std::string, ModuleUse> uses;
  int judged = 0;
  for (const Problem* p : py) {
    // Skipped here for the machine's toolkit or GPU: not judged, so nothing it imports matters.
    if (auto why = skip_reason(*p, m); why && why->code != "python_env") continue;
    ++judged;
    const std::set<std::string> own = own_modules(*p);
    std::set<std::string> mods;
    std::vector<SourceFile> files = p->test_files;
    if (p->baseline_solution)
      files.insert(files.end(), p->baseline_solution->files.begin(),
                   p->baseline_solution->files.end());
    for (const SourceFile& f : files) {
      if (fs::path(f.path).extension() != ".py") continue;
      for (const std::string& mod : python_module_imports(f.content))
        if (!own.count(mod) && !python_stdlib_modules().count(mod)) mods.insert(mod);
    }
    for (const std::string& mod : mods) {
      uses[mod].problems++;
      uses[mod].groups.insert(p->group.empty() ? "(no group)" : p->group);
    }
  }
  std::vector<std::string> names;
  for (const auto& [name, use] : uses) names.push_back(name);
  std::vector<std::string> missing;
  try {
    missing = missing_python_modules(python, names);
  } catch (const std::exception& e) {
    c.status = CheckStatus::fail;
    c.detail = e.what();
    c.advice = "run scripts/install-python-env again, or point KJUDGE_PYTHON_ENV elsewhere";
    return c;
  }
  const std::string where = m.python_env->root.string();
  if (missing.empty()) {
    c.detail =
        fmt::format("{}: the {} modules that {} judged cuda_python problems import are found",
                    where, names.size(), judged);
    if (judged < static_cast<int>(py.size()))
      c.detail += fmt::format(" ({} more are skipped on this machine)", py.size() - judged);
    return c;
  }
  c.status = CheckStatus::fail;
  std::set<std::string> groups;
  std::string which;
  for (const std::string& mod : missing) {
    auto it = uses.find(mod);
    if (it == uses.end()) continue;
    which += fmt::format("{}{} ({} problems: {})", which.empty() ? "" : "; ", mod,
                         it->second.problems, fmt::join(it->second.groups, ", "));
    groups.insert(it->second.groups.begin(), it->second.groups.end());
  }
  c.detail = where + " lacks: " + which;
  c.advice = fmt::format(
      "install them into it (scripts/install-python-env --dir {} --add NAME), or leave those "
      "problems out with --exclude-group {}",
      where, fmt::join(groups, " --exclude-group "));
  return c;
}

}  // namespace kjudge
