#pragma once
// The syscall filter every sandboxed step runs under (issue 3). bwrap builds the namespaces; this
// filter takes away what a build or test never needs and what would let it undo the namespaces
// or reach the kernel's larger attack surface: debugging other processes, mounting, loading
// kernel code, BPF, perf, keyrings, new namespaces. Default allow: a compiler or a CUDA program
// uses too wide and too changeable a set of syscalls for an allow list to stay correct.
#include <string>
#include <vector>

namespace kjudge {

// The syscalls answered with EPERM (by name, as libseccomp spells them).
const std::vector<std::string>& seccomp_denied_syscalls();

// The filter as a raw classic-BPF program (struct sock_filter[]), the format `bwrap --seccomp`
// reads. Built once, for the native architecture only: a syscall made through another ABI (i386
// `int 0x80` on x86-64) kills the process, so it cannot slip past the rules. Throws
// std::runtime_error if libseccomp fails.
const std::string& seccomp_bpf_program();

// A fresh memfd holding seccomp_bpf_program(), its offset at 0 (bwrap read()s it to the end, so
// each run needs its own), FD_CLOEXEC (run_process clears that in the child, see
// ProcessSpec::inherit_fds). The caller closes it. Throws std::runtime_error on failure.
int seccomp_bpf_fd();

}  // namespace kjudge
