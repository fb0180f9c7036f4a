#pragma once
// What a step leaves running once its first process has exited or been killed: daemons and
// background jobs that left its process group. Two ways to find them:
//   - by marker: every process a step starts inherits KJUDGE_STEP=<marker> in its environment,
//     found by reading /proc/<pid>/environ of every process on the machine (the fence where
//     nothing better exists; a process that clears its environment escapes it);
//   - by cgroup: every process of a step that joined its cgroups before exec and cannot leave
//     them (the sandbox: no cgroup filesystem, no capabilities) is listed in cgroup.procs, env
//     or none, at the cost of one read instead of one per process on the machine.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kjudge {

// The variable that carries a step's marker.
inline constexpr const char* kStepMarkerVar = "KJUDGE_STEP";

// A marker no other step of any judge on the machine has: "<pid>.<counter>".
std::string next_step_marker();

// SIGKILLs every process but this one whose environment holds `marker`, looking again until a
// pass finds no new one (a daemon's second fork).
void kill_marked(const std::string& marker);

// CPU seconds of the processes whose environment holds `marker`, each with its waited-for
// children; nullopt when none is found.
std::optional<double> marked_cpu_seconds(const std::string& marker);

// SIGKILLs every process in the cgroups `dirs` (cgroup.kill where the kernel has it, else each
// pid of cgroup.procs until a pass finds no new one).
void kill_cgroup_members(const std::vector<std::filesystem::path>& dirs);

}  // namespace kjudge
