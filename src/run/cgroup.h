#pragma once
// One cgroup per sandboxed step, for the two limits rlimits cannot give:
//   - processes: RLIMIT_NPROC is never enforced for the judge's uid 0 (see sandbox.h);
//   - memory: CUDA programs reserve ~14 GiB of address space before doing anything (measured on
//     the H100, results/gpu-runs.md), so RLIMIT_AS cannot tell a hog from a kernel test; a memory
//     cgroup counts what is really resident.
// cgroup v2 (one unified hierarchy) and v1 (a hierarchy per controller) are both handled. Step
// groups sit under the judge's own cgroup, so any limit set on the judge still covers them.
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kjudge {

struct CgroupLimits {
  long max_pids = 0;               // 0: not limited
  std::uint64_t memory_bytes = 0;  // 0: not limited; swap is never allowed beyond it
};

// Where this machine lets the judge create step cgroups.
struct CgroupPlace {
  int version = 0;  // 0: none usable, 1 or 2
  // The directories step groups are created in, one per controller (the same one on v2); empty
  // where that controller cannot be used.
  std::filesystem::path pids_parent;
  std::filesystem::path memory_parent;
  std::string why;  // what is missing and why, when a controller is unusable

  bool has_pids() const { return !pids_parent.empty(); }
  bool has_memory() const { return !memory_parent.empty(); }
  std::string describe() const;  // one line for doctor and reports
};

// Finds the place from a mount table and a /proc/<pid>/cgroup file. With `prepare`, also makes
// it usable: creates the `kjudge` parent directories and, on v2, enables the controllers for
// them, which the kernel refuses while the judge's own cgroup holds processes ("no internal
// processes"); those processes are then moved into a leaf child `judge` of the same cgroup, so
// they keep every limit they had (what container inits do). Stale groups of judges that died
// are removed.
CgroupPlace find_cgroup_place(const std::filesystem::path& mounts_file,
                              const std::filesystem::path& self_cgroup_file, bool prepare);

// find_cgroup_place for this process, prepared once; thread-safe.
const CgroupPlace& cgroup_place();

// The cgroup(s) of one step: created with its limits, joined by the step's first process
// (ProcessSpec::cgroups), emptied by SIGKILL and removed when destroyed.
class StepCgroup {
 public:
  // nullopt when the place has neither controller or the group cannot be made.
  static std::optional<StepCgroup> create(const CgroupLimits& limits,
                                          const CgroupPlace& place = cgroup_place());

  StepCgroup(StepCgroup&& other) noexcept;
  StepCgroup& operator=(StepCgroup&&) = delete;
  StepCgroup(const StepCgroup&) = delete;
  StepCgroup& operator=(const StepCgroup&) = delete;
  ~StepCgroup();

  std::vector<std::filesystem::path> dirs() const;  // the directories to join
  bool limits_pids() const { return !pids_dir_.empty(); }
  bool limits_memory() const { return !memory_dir_.empty(); }
  std::vector<pid_t> pids() const;  // the processes in it now
  // Whether the kernel's OOM killer acted inside the group (the step hit its memory limit).
  bool oom_killed() const;
  // The most memory the group ever used, where the kernel reports it.
  std::optional<std::uint64_t> memory_peak() const;
  // CPU time the group's processes have used so far, the dead among them included (cgroup v2's
  // cpu.stat, kept in every group whatever its controllers); nullopt on v1, whose cpuacct
  // hierarchy step groups do not join.
  std::optional<double> cpu_seconds() const;
  // How long the group's processes were kept waiting by the machine so far: the "some" stall
  // totals of its cpu.pressure, memory.pressure and io.pressure (cgroup v2 with PSI), summed
  // (overlaps count twice, which errs towards the step). nullopt where the kernel keeps no
  // pressure for the group (v1, or PSI off).
  std::optional<double> stall_seconds() const;

 private:
  StepCgroup(int version, std::filesystem::path pids_dir, std::filesystem::path memory_dir)
      : version_(version), pids_dir_(std::move(pids_dir)), memory_dir_(std::move(memory_dir)) {}

  int version_;
  std::filesystem::path pids_dir_;
  std::filesystem::path memory_dir_;
};

// The "some" line's total of a PSI file (/proc/pressure/cpu, a cgroup's cpu.pressure), in
// seconds; nullopt when the file is missing or says something else.
std::optional<double> pressure_some_seconds(const std::filesystem::path& file);

}  // namespace kjudge
