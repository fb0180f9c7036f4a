#pragma once
// For a child between fork and exec: every descriptor from 3 up is closed except those it is to
// keep. The judge opens its own files close-on-exec, but not every descriptor in its process is
// its own: one its parent left open (a shell's `77>file`, a service manager's socket), one a
// library opened without O_CLOEXEC. Measured (issue 31): a judge started with fd 77 on a host
// file and 78 on a secret handed both to a sandboxed test, which wrote the one and read the other.
#include <cstddef>

namespace kjudge {

// Closes every descriptor >= 3 but the `n` in `keep`, with close_range over the gaps, or, where
// the kernel lacks it, by the numbers /proc/self/fd lists, or failing that every number below
// RLIMIT_NOFILE. Async-signal-safe: no allocation, no lock (the judge has threads at fork).
void close_fds_except(const int* keep, std::size_t n);

}  // namespace kjudge
