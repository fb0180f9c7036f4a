#include "eval/env_check.h"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/shell_quote.h"
#include "eval/header_probe.h"
#include "eval/python_check.h"
#include "eval/sanitizer.h"
#include "run/cgroup.h"
#include "run/extra_libs.h"
#include "run/process.h"
#include "run/sandbox.h"

namespace kjudge {
namespace fs = std::filesystem;

namespace {

std::vector<std::string> split_words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  std::string w;
  while (in >> w) out.push_back(w);
  return out;
}

bool tool_on_path(const std::string& name) {
  ProcessResult r = run_shell("command -v " + name, "/", 10);
  return r.ok();
}

int compare_versions(const std::string& a, const std::string& b) {
  std::istringstream sa(a), sb(b);
  for (;;) {
    int x = 0, y = 0;
    char dot;
    bool ha = static_cast<bool>(sa >> x), hb = static_cast<bool>(sb >> y);
    if (!ha && !hb) return 0;
    if (x != y) return x < y ? -1 : 1;
    sa >> dot;
    sb >> dot;
  }
}

// The probes see what every step sees: the folder of scripts/install-libs (run/extra_libs.h).
std::string libs_env_prefix() {
  std::string prefix;
  if (const std::optional<ExtraLibs> libs = find_extra_libs())
    for (const std::string& kv : extra_libs_env(*libs, true)) {
      const std::size_t eq = kv.find('=');
      std::string quoted = "'";
      for (char c : kv.substr(eq + 1))
        quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
      prefix += kv.substr(0, eq) + "=" + quoted + "' ";
    }
  return prefix;
}

}  // namespace

std::vector<std::string> probe_flags(const std::string& build_command) {
  std::vector<std::string> out;
  auto words = split_words(build_command);
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w.rfind("-l", 0) == 0 && w.size() > 2)
      out.push_back(w);
    else if (w.rfind("-arch", 0) == 0 || w.rfind("--gpu-architecture", 0) == 0 ||
             w.rfind("-std=", 0) == 0 || w == "--extended-lambda" ||
             w == "--expt-relaxed-constexpr" || w.rfind("-code", 0) == 0)
      out.push_back(w);
    else if ((w == "-gencode" || w == "-arch" || w == "-code") && i + 1 < words.size()) {
      out.push_back(w + " " + words[i + 1]);
      ++i;
    } else if (w.rfind("-gencode=", 0) == 0)
      out.push_back(w);
  }
  return out;
}

namespace {

// The headers the problems take from the machine, asked of its compiler; a missing one names the
// groups that need it and what to install.
EnvCheck header_check(const MachineInfo& m, const std::vector<const Problem*>& problems,
                      const fs::path& dir) {
  EnvCheck c;
  c.name = "headers";
  const std::map<std::string, HeaderUse> uses = headers_from_machine(problems);
  std::vector<std::string> names;
  for (const auto& [h, u] : uses) names.push_back(h);
  std::vector<std::string> missing;
  try {
    missing = missing_headers(m.nvcc_path, names, dir, libs_env_prefix());
  } catch (const std::exception& e) {
    c.status = CheckStatus::warn;
    c.detail = e.what();
    return c;
  }
  if (missing.empty()) {
    c.detail =
        fmt::format("the {} headers the problems include from the machine are found", names.size());
    if (const std::optional<ExtraLibs> libs = find_extra_libs())
      c.detail += " (with " + libs->root.string() + ")";
    return c;
  }
  c.status = CheckStatus::fail;
  std::set<std::string> groups, advice;
  std::string which;
  for (const std::string& h : missing) {
    const HeaderUse& u = uses.at(h);
    std::string gs;
    for (const std::string& g : u.groups) {
      gs += (gs.empty() ? "" : ", ") + (g.empty() ? std::string("(no group)") : g);
      if (!g.empty()) groups.insert(g);
    }
    which += fmt::format("{}<{}> ({} problems: {})", which.empty() ? "" : "; ", h, u.problems, gs);
    if (std::string a = header_advice(h); !a.empty()) advice.insert(a);
  }
  c.detail = "missing here: " + which;
  for (const std::string& a : advice) c.advice += (c.advice.empty() ? "" : "; ") + a;
  if (!groups.empty())
    c.advice += fmt::format("{}or leave those problems out with --exclude-group {}",
                            c.advice.empty() ? "" : "; ", fmt::join(groups, " --exclude-group "));
  return c;
}

}  // namespace

std::vector<EnvCheck> check_environment(const MachineInfo& m,
                                        const std::vector<const Problem*>& problems,
                                        const EnvCheckOptions& opt) {
  std::vector<EnvCheck> checks;
  int builds = 0, need_gpu = 0;
  std::map<std::string, int> min_ctk;
  for (const Problem* p : problems) {
    if (p->build_command && p->build_command->find("nvcc") != std::string::npos) ++builds;
    if (!p->host_only) ++need_gpu;
    if (p->min_cuda_toolkit) min_ctk[*p->min_cuda_toolkit]++;
  }

  // nvcc and its version.
  EnvCheck nvcc;
  nvcc.name = "nvcc";
  if (m.nvcc_path.empty()) {
    nvcc.status = builds ? CheckStatus::fail : CheckStatus::warn;
    nvcc.detail = "nvcc not found on PATH or in /usr/local/cuda/bin";
    nvcc.advice = "install the CUDA toolkit and put its bin/ on PATH";
  } else {
    nvcc.detail = m.nvcc_path + " (CUDA " + m.cuda_version.value_or("?") + ")";
    int too_new = 0;
    std::string newest;
    for (const auto& [v, n] : min_ctk) {
      if (m.cuda_version && compare_versions(*m.cuda_version, v) < 0) {
        too_new += n;
        newest = v;
      }
    }
    if (too_new) {
      nvcc.status = CheckStatus::warn;
      nvcc.detail += fmt::format(
          "; {} problems need a newer toolkit (up to {}) and will be skipped", too_new, newest);
      nvcc.advice = "install CUDA " + newest + " or newer to judge them";
    }
  }
  checks.push_back(nvcc);

  // GPUs.
  EnvCheck gpus;
  gpus.name = "gpus";
  if (m.gpus.empty()) {
    gpus.detail = "no NVIDIA GPU found (nvidia-smi)";
    if (!opt.need_gpus) {
      gpus.detail += "; none needed: builds only";
    } else if (need_gpu && need_gpu == static_cast<int>(problems.size())) {
      gpus.status = CheckStatus::fail;
      gpus.advice =
          "run on a machine with an NVIDIA GPU and driver (every selected problem needs one), "
          "or pass --build-only to build every solution here without testing it";
    } else if (need_gpu) {
      gpus.status = CheckStatus::warn;
      gpus.detail += fmt::format("; {} problems need one and will be skipped", need_gpu);
      gpus.advice =
          "run on a machine with an NVIDIA GPU to judge them (--build-only builds "
          "them here without testing)";
    }
  } else {
    std::string list;
    for (const auto& g : m.gpus)
      list +=
          fmt::format("{}{}: {} (sm {})", list.empty() ? "" : ", ", g.index, g.name, g.compute_cap);
    gpus.detail = list + "; driver " + m.driver_version;
  }
  checks.push_back(gpus);

  // The Python environment, where cuda_python problems are selected.
  if (EnvCheck py = python_check(m, problems); !py.detail.empty()) checks.push_back(py);

  // The packs' build flags, tried on a probe program.
  if (opt.probe_build && !m.nvcc_path.empty() && builds) {
    std::set<std::string> flags;
    std::map<std::string, int> users;
    for (const Problem* p : problems) {
      if (!p->build_command) continue;
      for (const auto& f : probe_flags(*p->build_command)) {
        flags.insert(f);
        users[f]++;
      }
    }
    EnvCheck probe;
    probe.name = "build flags";
    fs::path dir = opt.scratch.empty()
                       ? fs::temp_directory_path() / ("kjudge-probe-" + std::to_string(getpid()))
                       : opt.scratch;
    std::error_code ec;
    fs::create_directories(dir, ec);
    {
      std::ofstream src(dir / "probe.cu");
      src << "__global__ void k(int* p) { if (p) *p = 1; }\nint main() { return 0; }\n";
    }
    auto compile = [&](const std::vector<std::string>& fl) {
      std::string cmd = libs_env_prefix() + "\"" + m.nvcc_path + "\" -o probe.out probe.cu";
      for (const auto& f : fl) cmd += " " + f;
      return run_shell(cmd, dir, 180, 8192);
    };
    // Mutually exclusive arch flags cannot go on one line; try the libraries together and each
    // architecture flag alone.
    std::vector<std::string> libs, others;
    for (const auto& f : flags) (f.rfind("-l", 0) == 0 ? libs : others).push_back(f);
    std::vector<std::string> broken;
    ProcessResult all = compile(libs);
    if (!all.ok()) {
      for (const auto& l : libs)
        if (!compile({l}).ok()) broken.push_back(l);
      if (broken.empty()) broken.push_back(fmt::format("{} together", fmt::join(libs, " ")));
    }
    for (const auto& f : others)
      if (!compile({f}).ok()) broken.push_back(f);
    checks.push_back(header_check(m, problems, dir));
    fs::remove_all(dir, ec);
    if (broken.empty()) {
      probe.detail = fmt::format("{} distinct flags compile and link", flags.size());
    } else {
      probe.status = CheckStatus::fail;
      std::string which;
      for (const auto& b : broken)
        which += fmt::format("{}{} (used by {} problems)", which.empty() ? "" : ", ", b, users[b]);
      probe.detail = "these build flags fail here: " + which;
      probe.advice =
          "install the missing CUDA libraries (e.g. cuBLAS, cuDNN) or filter the problems "
          "that need them with --exclude-group";
    }
    checks.push_back(probe);
  }

  // Caches and tools of later stages.
  if (!opt.cache_dir.empty()) {
    EnvCheck cache;
    cache.name = "build cache";
    std::error_code ec;
    fs::create_directories(opt.cache_dir, ec);
    if (ec || access(opt.cache_dir.c_str(), W_OK) != 0) {
      cache.status = CheckStatus::warn;
      cache.detail = opt.cache_dir.string() + " is not writable";
      cache.advice = "pass --cache-dir or --no-cache";
    } else {
      cache.detail = opt.cache_dir.string();
    }
    checks.push_back(cache);
  }
  for (const auto& [tool, why] : std::vector<std::pair<std::string, std::string>>{
           {"bwrap",
            "the sandbox, on by default (Debian package bubblewrap; --sandbox none runs "
            "unconfined)"},
           {"ncu", "profile mode (Nsight Compute, from the CUDA toolkit)"},
           {"python3", "Triton operators"}}) {
    EnvCheck t;
    t.name = tool;
    // The sandbox may use the bwrap bundled beside kjudge rather than one on PATH.
    const std::string found = tool == "bwrap" ? locate_bwrap().string() : tool;
    if (tool_on_path(found)) {
      t.detail = "found";
    } else {
      t.status = CheckStatus::warn;
      t.detail = "not found; needed for " + why;
      t.advice = "install it to use that stage";
    }
    checks.push_back(t);
  }
  // The memory checks (--sanitize): the toolkit's compute-sanitizer, a failure when asked for.
  checks.push_back(sanitizer_check(m, opt.sanitizer, !opt.sanitize.empty()));
  {
    // Processes and memory of a sandboxed step are only bounded for real by a cgroup.
    EnvCheck cg;
    cg.name = "cgroup";
    const CgroupPlace& place = cgroup_place();
    cg.detail = place.describe();
    if (!place.has_pids() || !place.has_memory()) {
      cg.status = CheckStatus::warn;
      cg.advice =
          "run kjudge as root where cgroup v2 (or v1 pids and memory hierarchies) is mounted "
          "writable; without it memory is limited per process (RLIMIT_DATA) and a fork bomb "
          "only by the wall clock";
    }
    checks.push_back(cg);
  }
  return checks;
}

bool any_failed(const std::vector<EnvCheck>& checks) {
  for (const auto& c : checks)
    if (c.status == CheckStatus::fail) return true;
  return false;
}

std::string format_checks(const std::vector<EnvCheck>& checks) {
  std::string out;
  for (const auto& c : checks) {
    const char* tag = c.status == CheckStatus::ok     ? "ok  "
                      : c.status == CheckStatus::warn ? "WARN"
                                                      : "FAIL";
    out += fmt::format("[{}] {:<18} {}\n", tag, c.name, c.detail);
    if (!c.advice.empty() && c.status != CheckStatus::ok)
      out += fmt::format("       fix: {}\n", c.advice);
  }
  return out;
}

}  // namespace kjudge
