#include "run/sandbox.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <fstream>
#include <stdexcept>
#include <system_error>

#include "core/byte_size.h"
#include "core/private_dir.h"
#include "run/cgroup.h"
#include "run/seccomp_filter.h"

namespace kjudge {
namespace {

namespace fs = std::filesystem;

// The merged-/usr links (Debian 12, Ubuntu 24.04: /bin -> usr/bin and so on). Where the host
// has a real directory instead (an unmerged system), it is bound read-only instead.
constexpr const char* kTopLevelLinks[] = {"bin", "sbin", "lib", "lib32", "lib64", "libx32"};

// The part of /etc a compiler and a CUDA program read: the dynamic loader's cache and config,
// the user and group names (getpwuid, whoami), name-service config and hosts (localhost
// resolves without a network), and the alternatives that /usr/bin/cc, c++ and friends point
// through. Nothing else of /etc: no machine identity, credentials or service configuration.
constexpr const char* kEtcFiles[] = {"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
                                     "/etc/passwd",      "/etc/group",      "/etc/nsswitch.conf",
                                     "/etc/hosts",       "/etc/host.conf",  "/etc/alternatives",
                                     "/etc/localtime"};

// The step's uid and gid inside the user namespace: nobody, never 0. bwrap drops every
// capability for a non-zero uid, so the step cannot use CAP_SYS_ADMIN in its own namespace;
// the mapping still points back to the judge's uid, so files it writes in the workspace belong
// to the judge outside.
constexpr const char* kSandboxId = "65534";

void add(std::vector<std::string>& cmd, std::initializer_list<std::string> args) {
  cmd.insert(cmd.end(), args);
}

}  // namespace

std::vector<std::string> sandbox_command(const SandboxPolicy& policy,
                                         const std::vector<std::string>& argv, int seccomp_fd) {
  if (!policy.workspace.is_absolute()) {
    throw std::invalid_argument("sandbox workspace must be absolute: " + policy.workspace.string());
  }
  const std::string ws = policy.workspace.lexically_normal().string();
  std::vector<std::string> cmd = {policy.bwrap.string()};

  // Namespaces. user: the mount and pid setup below needs no privilege the step keeps, and the
  // step runs as nobody with no capabilities. pid: the step sees only its own processes and
  // cannot signal the judge or a sibling step; when bwrap's pid 1 dies, the kernel kills all of
  // them. ipc: no shared memory or semaphores with other steps. uts: its own hostname. net: only
  // a loopback of its own, so no host service (the judge's, a database, the internet) is
  // reachable. cgroup: its own cgroup root view, where the kernel supports it.
  add(cmd, {"--unshare-user", "--uid", kSandboxId, "--gid", kSandboxId});
  add(cmd,
      {"--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net", "--unshare-cgroup-try"});
  add(cmd, {"--hostname", "kjudge"});
  // The sandbox dies with the judge (pdeathsig on bwrap's children), so a killed judge leaves no
  // step running.
  add(cmd, {"--die-with-parent"});
  // A new session has no controlling terminal, so TIOCSTI cannot push keystrokes into one.
  add(cmd, {"--new-session"});

  // The filesystem starts empty (bwrap's new root is a tmpfs); only what is named here exists.
  // The system, read-only: compilers, the CUDA toolkit (/usr/local/cuda) and libraries.
  add(cmd, {"--ro-bind", "/usr", "/usr"});
  for (const char* name : kTopLevelLinks) {
    const fs::path host = fs::path("/") / name;
    std::error_code ec;
    auto status = fs::symlink_status(host, ec);
    if (ec || !fs::exists(status)) continue;
    if (fs::is_symlink(status)) {
      add(cmd, {"--symlink", fs::read_symlink(host, ec).string(), host.string()});
    } else {
      add(cmd, {"--ro-bind", host.string(), host.string()});
    }
  }
  for (const char* path : kEtcFiles) add(cmd, {"--ro-bind-try", path, path});

  // Kernel interfaces: a /proc of the new pid namespace (only the step's processes), and a
  // minimal /dev (null, zero, full, random, urandom, tty, shm, pts) rather than the host's.
  add(cmd, {"--proc", "/proc", "--dev", "/dev"});
  // The GPU: the device nodes the CUDA driver opens, and nothing else of the host's /dev.
  if (policy.gpu) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator("/dev", ec)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("nvidia", 0) == 0) {
        add(cmd, {"--dev-bind", entry.path().string(), entry.path().string()});
      }
    }
  }

  // A private /tmp: the step's temporaries never meet another step's or the judge's. It comes
  // before the workspace so that a workspace under /tmp is bound on top of it, not hidden.
  add(cmd, {"--size", std::to_string(policy.tmp_bytes), "--tmpfs", "/tmp"});
  // Extra read-only paths (a toolkit outside /usr, the profiler library) after /tmp, so one
  // that lives under /tmp is not hidden by the private tmpfs.
  for (const fs::path& p : policy.ro_paths) {
    add(cmd, {"--ro-bind", p.lexically_normal().string(), p.lexically_normal().string()});
  }
  for (const auto& [host, inside] : policy.ro_binds) {
    add(cmd, {"--ro-bind", host.lexically_normal().string(), inside.lexically_normal().string()});
  }
  // The workspace, writable, at the same absolute path, so paths in build output and error
  // messages read the same inside and out. Nothing beside it (other workspaces, the run's
  // output, /work, /root, /home) is mounted.
  add(cmd, {"--bind", ws, ws, "--chdir", ws});
  // bwrap's new root is a writable tmpfs; once every mount point in it exists, it turns
  // read-only, so the workspace and /tmp are the only places a step can write.
  add(cmd, {"--remount-ro", "/"});

  // Only the variables the policy names: no HOME, tokens or judge settings leak in.
  add(cmd, {"--clearenv"});
  for (const std::string& kv : policy.env) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) {
      throw std::invalid_argument("sandbox env entry is not KEY=VALUE: " + kv);
    }
    add(cmd, {"--setenv", kv.substr(0, eq), kv.substr(eq + 1)});
  }

  // Applied by bwrap last, just before exec, once every namespace and mount is in place: the
  // filter may then deny mount and unshare that bwrap itself needed.
  if (seccomp_fd >= 0) add(cmd, {"--seccomp", std::to_string(seccomp_fd)});

  // The step's own arguments can never be read as bwrap options.
  cmd.push_back("--");
  cmd.insert(cmd.end(), argv.begin(), argv.end());
  return cmd;
}

ArgsThroughFd args_through_fd(const std::vector<std::string>& command, int fd) {
  ArgsThroughFd out;
  auto dashes = std::find(command.begin(), command.end(), std::string("--"));
  if (command.empty() || dashes == command.end())
    throw std::invalid_argument("not a bwrap command: no \"--\" before the step's own words");
  for (auto it = command.begin() + 1; it != dashes; ++it) {
    out.data += *it;
    out.data.push_back('\0');
  }
  out.argv = {command.front(), "--args", std::to_string(fd)};
  out.argv.insert(out.argv.end(), dashes, command.end());
  return out;
}

ProcessResult run_sandboxed(const SandboxPolicy& policy, const std::vector<std::string>& argv,
                            double timeout_s, std::size_t output_cap) {
  ProcessResult failed;
  int seccomp_fd = -1;
  try {
    seccomp_fd = seccomp_bpf_fd();
  } catch (const std::exception& e) {
    failed.error = e.what();
    return failed;
  }
  ProcessSpec spec;
  int args_fd = -1;
  try {
    std::vector<std::string> command = sandbox_command(policy, argv, seccomp_fd);
    // The step's PATH is not the judge's: a bare "bwrap" is found here, where the judge looks.
    if (!policy.bwrap.has_parent_path()) command[0] = locate_bwrap().string();
    // bwrap reads from the descriptor's offset to its end: pwrite leaves the offset at 0.
    args_fd = memfd_create("kjudge-bwrap-args", MFD_CLOEXEC);
    if (args_fd < 0) throw std::runtime_error("judge: cannot create a memfd for bwrap's options");
    ArgsThroughFd through = args_through_fd(command, args_fd);
    if (pwrite(args_fd, through.data.data(), through.data.size(), 0) !=
        static_cast<ssize_t>(through.data.size()))
      throw std::runtime_error("judge: cannot write bwrap's options");
    spec.argv = std::move(through.argv);
  } catch (const std::exception& e) {
    close(seccomp_fd);
    if (args_fd >= 0) close(args_fd);
    failed.error = e.what();
    return failed;
  }
  spec.cwd = policy.workspace;
  // bwrap's own environment: just enough to find it; the step's comes from --setenv.
  spec.env = std::vector<std::string>{"PATH=/usr/bin:/bin"};
  spec.timeout_s = timeout_s;
  spec.output_cap = output_cap;
  spec.limits = policy.limits;
  spec.inherit_fds = {seccomp_fd, args_fd};
  spec.inherit_fds.insert(spec.inherit_fds.end(), policy.keep_fds.begin(), policy.keep_fds.end());
  spec.watch_dir = policy.workspace;
  spec.watch_dir_max_bytes = policy.workspace_bytes;
  // bwrap's two processes (the monitor outside, pid 1 inside) count against pids.max too.
  CgroupLimits cl{policy.limits.processes + 2, policy.memory_bytes};
  std::optional<StepCgroup> cgroup = StepCgroup::create(cl);
  if (cgroup) {
    spec.cgroups = cgroup->dirs();
    // Inside, no cgroup filesystem is mounted and the step holds no capability: it cannot move
    // out, so the group lists every process it left, whatever environment they kept.
    spec.sealed_in_cgroups = true;
  }
  spec.starved_wall_cap_s = policy.starved_wall_cap_s;
  spec.tree_cpu_s = [&cgroup]() -> std::optional<double> {
    return cgroup ? cgroup->cpu_seconds() : std::nullopt;
  };
  spec.stall_wall_cap_s = policy.stall_wall_cap_s;
  spec.condemn_clear_s = policy.condemn_clear_s;
  spec.lost_s = [&cgroup, &policy]() -> std::optional<double> {
    std::optional<double> stall = cgroup ? cgroup->stall_seconds() : std::nullopt;
    if (!stall) return std::nullopt;
    return *stall + (policy.shared_lost_s ? policy.shared_lost_s() : 0.0);
  };
  // A solution can raise its own cgroup's pressure (threads that wait on each other), so the
  // pressure may only make its timeout doubtful (a quiet retry alone decides it), never extend
  // its run: the grace counts what the judge measured beside it, the GPU its neighbours took.
  spec.grace_lost_s = [&policy]() -> std::optional<double> {
    if (!policy.shared_lost_s) return std::nullopt;
    return policy.shared_lost_s();
  };
  if (policy.memory_bytes > 0 && !(cgroup && cgroup->limits_memory()))
    spec.limits->data_bytes = static_cast<long>(policy.memory_bytes);
  ProcessResult result = run_process(spec);
  close(seccomp_fd);
  close(args_fd);
  if (cgroup) {
    if (auto peak = cgroup->memory_peak()) result.memory_peak_bytes = *peak;
    // wait4's rusage is bwrap's monitor and what it reaped: the step's own processes, reaped by
    // bwrap's pid 1 inside the namespace, are missing there (a 120 s nvcc build read 0.005 s on
    // the H100). The cgroup counted every process of the step.
    if (auto cpu = cgroup->cpu_seconds()) result.cpu_s = *cpu;
    if (cgroup->oom_killed() && result.limit_exceeded.empty() && !result.timed_out)
      result.limit_exceeded =
          "used more memory than its limit of " + format_byte_size(policy.memory_bytes);
  }
  return result;
}

bool sandbox_available(const SandboxPolicy& policy, std::string* why) {
  // A fresh empty workspace: the workspace limit counts what is already there, and a shared
  // directory such as /tmp may hold more than the limit.
  PrivateDir scratch = PrivateDir::try_make(fs::temp_directory_path(), "kjudge-sandbox-check-");
  if (scratch.path().empty()) {
    if (why)
      *why = "cannot create a temporary directory under " + fs::temp_directory_path().string();
    return false;
  }
  SandboxPolicy check = policy;
  check.workspace = scratch.path();
  ProcessResult r = run_sandboxed(check, {"true"}, 30);
  scratch.remove();
  if (r.ok()) return true;
  if (why) {
    *why = !r.started                  ? r.error
           : !r.limit_exceeded.empty() ? "the check step " + r.limit_exceeded
           : !r.output.empty()         ? r.output
                                       : "exit " + std::to_string(r.exit_code) +
                                     (r.signal ? ", signal " + std::to_string(r.signal) : "");
  }
  return false;
}

std::filesystem::path locate_bwrap(const std::string& preferred) {
  if (!preferred.empty()) return preferred;
  if (const char* e = std::getenv("KJUDGE_BWRAP"); e && *e) return e;
  if (const char* path = std::getenv("PATH")) {
    std::string dirs = path;
    std::size_t pos = 0;
    while (pos <= dirs.size()) {
      std::size_t end = dirs.find(':', pos);
      if (end == std::string::npos) end = dirs.size();
      std::filesystem::path candidate =
          std::filesystem::path(dirs.substr(pos, end - pos)) / "bwrap";
      if (access(candidate.c_str(), X_OK) == 0) return candidate;
      pos = end + 1;
    }
  }
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  std::filesystem::path bundled = self.parent_path() / "bwrap/root/usr/bin/bwrap";
  if (!ec && access(bundled.c_str(), X_OK) == 0) return bundled;
  return "bwrap";
}

}  // namespace kjudge
