#pragma once
// The sandbox every build and test step runs in (issue 3, "Untrusted code stays contained").
// Three fences, each covering what the others cannot:
//   1. bubblewrap namespaces: the step sees a read-only system, its own workspace, a private
//      /tmp, no network, no other process, none of the judge's files (sandbox_command);
//   2. a seccomp filter against the syscalls that would undo the namespaces or reach the kernel's
//      larger surfaces (seccomp_filter.h), handed to bwrap as `--seccomp FD`;
//   3. resource limits: setrlimit in the child before exec (Limits, process.h) and, where the
//      machine lets the judge make one, a cgroup per step (StepCgroup, cgroup.h) for processes
//      and memory: RLIMIT_NPROC is never enforced for the judge's uid 0, inside a user
//      namespace or not (the namespace's uid maps back to kernel uid 0, which the fork check
//      exempts), and no rlimit measures memory the way a cgroup does.
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "run/process.h"

namespace kjudge {

struct SandboxPolicy {
  std::filesystem::path bwrap = "bwrap";        // a bare name: found by locate_bwrap()
  std::filesystem::path workspace;              // absolute; the only writable host directory
  std::vector<std::filesystem::path> ro_paths;  // more host paths, read-only at the same place
  // Host files bound read-only at another path inside (a preloaded library under /.kjudge/, so
  // that the step sees no directory of the judge's).
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> ro_binds;
  bool gpu = false;              // the /dev/nvidia* nodes
  std::vector<std::string> env;  // KEY=VALUE: the only variables the step sees
  Limits limits;
  // The private /tmp is a tmpfs, i.e. host memory: kept small. Steps get TMPDIR inside their
  // workspace (the evaluator sets it), where the workspace limit below counts it.
  std::uint64_t tmp_bytes = 64ull << 20;
  // Everything in the workspace together; the step is killed when it grows past this.
  std::uint64_t workspace_bytes = 1ull << 30;
  // Memory of the whole step (all its processes), through a memory cgroup; where there is none,
  // RLIMIT_DATA per process instead (CUDA tolerates it: its reservations are not data). 0: none.
  std::uint64_t memory_bytes = 0;
  // Descriptors the step keeps open (e.g. the profiler's result channel); all others close.
  std::vector<int> keep_fds;
  // ProcessSpec::starved_wall_cap_s, with the step's cgroup counting its CPU time (cgroup v2;
  // elsewhere the wall clock alone decides: the sandbox hides the step's processes' marker).
  double starved_wall_cap_s = 0;
  // ProcessSpec::stall_wall_cap_s and condemn_clear_s, with the time the step lost to the
  // machine read from its cgroup's pressure (cgroup v2 with PSI; elsewhere no grace) plus
  // `shared_lost_s`, what the caller knows it lost besides (a GPU shared with other tests).
  double stall_wall_cap_s = 0;
  double condemn_clear_s = 0;
  std::function<double()> shared_lost_s;
};

// The bwrap argv (bwrap first) that runs `argv` under `policy`. `seccomp_fd` >= 0 adds
// `--seccomp FD`; that descriptor must survive exec into bwrap (ProcessSpec::inherit_fds).
std::vector<std::string> sandbox_command(const SandboxPolicy& policy,
                                         const std::vector<std::string>& argv, int seccomp_fd = -1);

// The command sandbox_command() gave, as bwrap is started: its options (every word between
// bwrap and "--") go through descriptor `fd` as NUL-terminated words (`--args FD`, which bwrap
// reads and closes before it builds the sandbox), so no path, variable or value the judge passes
// shows in bwrap's command line, which /proc/1/cmdline exposes inside the sandbox (bwrap's init
// is pid 1 there). `data` is what the descriptor must hold.
struct ArgsThroughFd {
  std::vector<std::string> argv;  // bwrap --args FD -- <the step's own argv>
  std::string data;
};
ArgsThroughFd args_through_fd(const std::vector<std::string>& command, int fd);

// Runs `argv` in the sandbox: seccomp filter, limits, a step cgroup where available. A step the
// kernel killed for memory gets limit_exceeded saying so. A failure to
// set the sandbox up is a judge fault: started = false, `error` says why.
ProcessResult run_sandboxed(const SandboxPolicy& policy, const std::vector<std::string>& argv,
                            double timeout_s, std::size_t output_cap = 64 * 1024);

// Whether bwrap can build the sandbox on this machine (runs `true` in it, in a fresh empty
// workspace of its own; policy.workspace is ignored); `why` gets bwrap's complaint when not.
bool sandbox_available(const SandboxPolicy& policy, std::string* why = nullptr);

// Which bwrap to use: `preferred` when given, else $KJUDGE_BWRAP, else bwrap on PATH, else the
// copy scripts/gpu-bundle unpacks beside the kjudge binary (the GPU machine has no package).
std::filesystem::path locate_bwrap(const std::string& preferred = "");

}  // namespace kjudge
