#pragma once
// Runs one command as a child process in its own process group, with a wall-clock limit, and
// captures its merged stdout+stderr up to a cap. The whole group is killed on timeout and again
// after the child exits, so nothing it spawned outlives the run.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kjudge {

// Kernel resource limits (setrlimit) the child takes on just before exec; its descendants
// inherit them. RLIMIT_CORE is always 0 under limits: a crashing test must not write gigabytes.
struct Limits {
  double cpu_s = 600;               // RLIMIT_CPU, per process (SIGXCPU, then SIGKILL)
  long processes = 512;             // RLIMIT_NPROC; not enforced for uid 0, see sandbox.h
  long open_files = 4096;           // RLIMIT_NOFILE
  long file_size_bytes = 1L << 30;  // RLIMIT_FSIZE, per file (SIGXFSZ / EFBIG)
  long address_space_bytes = 0;     // RLIMIT_AS; 0 = unlimited (CUDA reserves ~14 GiB)
  // RLIMIT_DATA (heap and private writable mappings; not CUDA's reservations, which are
  // PROT_NONE): the memory limit where no memory cgroup is available. 0 = unlimited.
  long data_bytes = 0;
};

struct ProcessSpec {
  std::vector<std::string> argv;  // argv[0] is looked up in PATH
  std::filesystem::path cwd;
  // Full environment for the child; nullopt inherits the judge's environment.
  std::optional<std::vector<std::string>> env;
  double timeout_s = 60.0;
  std::size_t output_cap = 64 * 1024;  // bytes kept: half from the start, half from the end
  std::optional<Limits> limits;
  // Descriptors the child keeps across exec (their FD_CLOEXEC is cleared in the child only), e.g.
  // the seccomp program handed to bwrap as `--seccomp FD`. Every other descriptor from 3 up is
  // closed in the child before exec (close_fds.h), close-on-exec or not: whatever the judge's
  // own process inherited or a library left open never reaches the step.
  std::vector<int> inherit_fds;
  // Cgroup directories (v1: one per hierarchy; v2: one) the child joins before exec, so every
  // descendant is counted from its first instruction (StepCgroup, cgroup.h). Empty: stay where
  // the judge is.
  std::vector<std::filesystem::path> cgroups;
  // The step cannot leave `cgroups` (the sandbox: no cgroup filesystem inside, no capabilities),
  // so what it leaves running is found there. Otherwise it is found by the marker every process
  // of the step inherits in its environment, one read of /proc/<pid>/environ per process on the
  // machine (run/leftovers.h), which finds nothing in the sandbox: bwrap clears the environment.
  bool sealed_in_cgroups = false;
  // A directory whose total size is checked while the step runs and once after: past the
  // limit the step is killed (or, after the fact, marked) with limit_exceeded set. It bounds
  // what a step can write to disk, which RLIMIT_FSIZE (per file) does not.
  std::filesystem::path watch_dir;
  std::uintmax_t watch_dir_max_bytes = 0;
  // A loaded machine's grace (builds): past timeout_s on the wall clock, a step whose processes
  // have used less than timeout_s of CPU time between them was waiting for a core, not working,
  // so it goes on while its CPU time stays under timeout_s, until starved_wall_cap_s of wall
  // time. 0: the wall clock alone decides. Whether the machine really was loaded is the
  // caller's to check (ProcessResult::cpu_limited says the grace was used).
  double starved_wall_cap_s = 0;
  // The step's CPU time so far, for the grace; nullopt when it cannot be told (then the wall
  // clock decides). Unset: the processes carrying the step's marker are summed from /proc,
  // which finds them only where they keep the judge's environment (not in the sandbox, whose
  // cgroup answers instead).
  std::function<std::optional<double>()> tree_cpu_s;
  // A loaded machine's grace for tests (issue 35): past timeout_s on the wall clock, a step goes
  // on while the time it had clear of the machine (wall time less `lost_s`, the time the
  // machine kept it waiting) is under timeout_s, until stall_wall_cap_s of wall time; and
  // stops as soon as its clear time reaches `condemn_clear_s` (> 0), the time past which a
  // timeout is its own whatever the machine did. 0: the wall clock alone decides.
  double stall_wall_cap_s = 0;
  double condemn_clear_s = 0;
  // nullopt when it cannot be told (no grace then; ProcessResult::lost_s stays < 0).
  std::function<std::optional<double>()> lost_s;
  // What the grace counts as lost, where it must be less than `lost_s`: only time the step
  // cannot add to itself (its own threads waiting on each other raise its cgroup's pressure, and
  // would buy it more wall time). Unset: `lost_s`.
  std::function<std::optional<double>()> grace_lost_s;
};

struct ProcessResult {
  bool started = false;  // false: fork/exec failed; `error` says why (a judge fault)
  std::string error;
  int exit_code = -1;  // valid when exited normally
  int signal = 0;      // non-zero when killed by a signal (other than our timeout kill)
  bool timed_out = false;
  // It ran past timeout_s on the wall clock under ProcessSpec::starved_wall_cap_s, its CPU time
  // under timeout_s (timed_out too if it then reached either limit).
  bool cpu_limited = false;
  // It ran past timeout_s under ProcessSpec::stall_wall_cap_s, its clear time under timeout_s.
  bool stall_graced = false;
  // What ProcessSpec::lost_s said when the step ended; < 0: not known.
  double lost_s = -1;
  std::string limit_exceeded;  // why the judge stopped the step (other than the wall clock)
  std::string output;          // capped; a truncation marker stands in the middle when cut
  bool truncated = false;
  std::size_t output_bytes = 0;  // total bytes the process wrote
  double wall_s = 0;
  double cpu_s = 0;                     // user+system of the child and its waited-for descendants
  std::uint64_t memory_peak_bytes = 0;  // the step's peak memory where a cgroup measured it

  bool ok() const {
    return started && !timed_out && limit_exceeded.empty() && signal == 0 && exit_code == 0;
  }
};

ProcessResult run_process(const ProcessSpec& spec);

// The first non-blank line of a step's output, cut to `cap` characters: the line a one-line
// failure message quotes.
std::string first_output_line(const std::string& output, std::size_t cap = 300);

// Convenience: runs `sh -c command`.
ProcessResult run_shell(const std::string& command, const std::filesystem::path& cwd,
                        double timeout_s, std::size_t output_cap = 64 * 1024,
                        std::optional<std::vector<std::string>> env = std::nullopt);

}  // namespace kjudge
