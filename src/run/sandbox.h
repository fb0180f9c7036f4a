#pragma once
// The sandbox every build and test step runs in (issue 3, "Untrusted code stays contained").
// Three fences, each covering what the others cannot:
//   1. bubblewrap namespaces: the step sees a read-only system, its own workspace, a private
//      /tmp, no network, no other process, none of the judge's files (sandbox_command);
//   2. a seccomp filter against the syscalls that would undo the namespaces or reach the kernel's
//      larger surfaces (seccomp_filter.h), handed to bwrap as `--seccomp FD`;
//   3. resource limits: setrlimit in the child before exec (Limits, process.h) and, where the
//      cgroup v1 pids hierarchy exists, a pids cgroup (PidsCgroup), because RLIMIT_NPROC is
//      never enforced for the judge's uid 0, inside a user namespace or not (the namespace's
//      uid maps back to kernel uid 0, which the fork check exempts).
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "run/process.h"

namespace kjudge {

struct SandboxPolicy {
  std::filesystem::path bwrap = "bwrap";        // looked up in PATH when not absolute
  std::filesystem::path workspace;              // absolute; the only writable host directory
  std::vector<std::filesystem::path> ro_paths;  // more host paths, read-only at the same place
  bool gpu = false;                             // the /dev/nvidia* nodes
  std::vector<std::string> env;                 // KEY=VALUE: the only variables the step sees
  Limits limits;
  // The private /tmp is a tmpfs, i.e. host memory: kept small. Steps get TMPDIR inside their
  // workspace (the evaluator sets it), where the workspace limit below counts it.
  std::uint64_t tmp_bytes = 64ull << 20;
  // Everything in the workspace together; the step is killed when it grows past this.
  std::uint64_t workspace_bytes = 1ull << 30;
};

// The bwrap argv (bwrap first) that runs `argv` under `policy`. `seccomp_fd` >= 0 adds
// `--seccomp FD`; that descriptor must survive exec into bwrap (ProcessSpec::inherit_fds).
std::vector<std::string> sandbox_command(const SandboxPolicy& policy,
                                         const std::vector<std::string>& argv, int seccomp_fd = -1);

// A pids cgroup (v1) for one step: a fork bomb stops at pids.max whatever the uid, and what is
// left in it when the step ends is killed and the group removed.
class PidsCgroup {
 public:
  // Creates <root>/kjudge/<judge pid>.<n> with pids.max = max_pids; nullopt where the hierarchy
  // is missing (cgroup v2 only, or not mounted) or not writable (not root).
  static std::optional<PidsCgroup> create(long max_pids,
                                          const std::filesystem::path& root = default_root());
  static std::filesystem::path default_root() { return "/sys/fs/cgroup/pids"; }

  PidsCgroup(PidsCgroup&& other) noexcept;
  PidsCgroup& operator=(PidsCgroup&&) = delete;
  PidsCgroup(const PidsCgroup&) = delete;
  PidsCgroup& operator=(const PidsCgroup&) = delete;
  ~PidsCgroup();

  const std::filesystem::path& path() const { return path_; }
  std::vector<pid_t> pids() const;  // the processes in it now

 private:
  explicit PidsCgroup(std::filesystem::path path) : path_(std::move(path)) {}
  std::filesystem::path path_;
};

// Runs `argv` in the sandbox: seccomp filter, limits, pids cgroup where available. A failure to
// set the sandbox up is a judge fault: started = false, `error` says why.
ProcessResult run_sandboxed(const SandboxPolicy& policy, const std::vector<std::string>& argv,
                            double timeout_s, std::size_t output_cap = 64 * 1024);

// Whether bwrap can build the sandbox on this machine (runs `true` in it); `why` gets bwrap's
// complaint when not. For tests and `kjudge doctor`.
bool sandbox_available(const SandboxPolicy& policy, std::string* why = nullptr);

// Which bwrap to use: `preferred` when given, else $KJUDGE_BWRAP, else bwrap on PATH, else the
// copy scripts/gpu-bundle unpacks beside the kjudge binary (the GPU machine has no package).
std::filesystem::path locate_bwrap(const std::string& preferred = "");

}  // namespace kjudge
