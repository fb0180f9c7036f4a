#pragma once
// Starts a step's first process without copying the judge's address space. fork() copied the
// judge's page tables and ~300 mappings for every step and then paid a copy-on-write fault
// for each page the judge touched while the child lived: about 0.65 ms of judge CPU per step on
// the 2-core development machine, a sixth of its whole work per solution (issue 35). The child
// here shares the judge's memory until it execs (clone with CLONE_VM | CLONE_VFORK, as
// posix_spawn does), and does what posix_spawn cannot: join the step's cgroups and take its
// rlimits before exec, so the step is counted and bounded from its first instruction.
#include <sys/types.h>

#include <string>
#include <vector>

#include "run/process.h"

namespace kjudge {

// Everything the child needs, made by the caller beforehand: between clone and exec the child
// may only make system calls (no allocation, no lock: it runs on the judge's memory while the
// judge's other threads go on).
struct SpawnPlan {
  char* const* argv = nullptr;  // argv[0] is looked up in the PATH of `envp`, as execvp did
  char* const* envp = nullptr;
  const char* cwd = nullptr;              // nullptr: stay
  int output_fd = -1;                     // becomes stdout and stderr; stdin is /dev/null
  std::vector<const char*> cgroup_procs;  // cgroup.procs files to join
  const Limits* limits = nullptr;         // nullptr: none
  std::vector<int> inherit_fds;           // kept across exec; all others from 3 up close
};

struct Spawned {
  pid_t pid = -1;     // -1: not started; `error` says why
  std::string error;  // e.g. "clone: Resource temporarily unavailable"
  // A child that failed before its program ran exits 126 (working directory, cgroup) or 127
  // (exec); this is what it would have printed ("kjudge: cannot run X: No such file ..."), for
  // the caller to show as the start of its output.
  std::string child_message;
};

// Starts the child in a process group of its own; returns once it has exec'd or failed.
Spawned spawn_step(const SpawnPlan& plan);

// Where execvp would look for `file` with PATH `path` (nullptr: unset): `file` itself when it
// names a path, else each directory of PATH in turn ("/bin:/usr/bin" when unset; an empty entry
// is the working directory).
std::vector<std::string> exec_candidates(const std::string& file, const char* path);

}  // namespace kjudge
