#include "run/seccomp_filter.h"

#include <sched.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <stdexcept>

namespace kjudge {
namespace {

std::runtime_error seccomp_error(const std::string& what, int rc) {
  return std::runtime_error("seccomp: " + what + ": " + std::strerror(rc < 0 ? -rc : rc));
}

// libseccomp exports only to a file descriptor; a memfd keeps that off the disk.
std::string read_all(int fd) {
  std::string out;
  char buf[4096];
  if (lseek(fd, 0, SEEK_SET) != 0) throw seccomp_error("lseek", errno);
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw seccomp_error("read", errno);
    if (n == 0) return out;
    out.append(buf, static_cast<std::size_t>(n));
  }
}

std::string build_program() {
  std::unique_ptr<void, void (*)(scmp_filter_ctx)> ctx(seccomp_init(SCMP_ACT_ALLOW),
                                                       seccomp_release);
  if (!ctx) throw std::runtime_error("seccomp: seccomp_init failed");
  for (const std::string& name : seccomp_denied_syscalls()) {
    int nr = seccomp_syscall_resolve_name(name.c_str());
    // A name this architecture lacks (kexec_file_load on some) has nothing to deny.
    if (nr == __NR_SCMP_ERROR) continue;
    int rc = seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EPERM), nr, 0);
    if (rc != 0) throw seccomp_error("rule for " + name, rc);
  }
  // unshare is denied above; clone can create namespaces too. One rule per flag, because a
  // rule's comparisons are ANDed and "any of these bits" is an OR.
  for (unsigned long flag : {CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWNET, CLONE_NEWIPC,
                             CLONE_NEWUTS, CLONE_NEWCGROUP}) {
    int rc = seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                              SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag));
    if (rc != 0) throw seccomp_error("rule for clone", rc);
  }
  // clone3 passes its flags in memory, where BPF cannot look. ENOSYS (not EPERM) makes glibc
  // fall back to clone, whose flags the rules above do check.
  int rc = seccomp_rule_add(ctx.get(), SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
  if (rc != 0) throw seccomp_error("rule for clone3", rc);

  int fd = memfd_create("kjudge-seccomp-export", MFD_CLOEXEC);
  if (fd < 0) throw seccomp_error("memfd_create", errno);
  rc = seccomp_export_bpf(ctx.get(), fd);
  if (rc != 0) {
    close(fd);
    throw seccomp_error("export", rc);
  }
  try {
    std::string program = read_all(fd);
    close(fd);
    return program;
  } catch (...) {
    close(fd);
    throw;
  }
}

}  // namespace

const std::vector<std::string>& seccomp_denied_syscalls() {
  static const std::vector<std::string> names = {
      // Reading or steering another process: the judge, or a sibling test in the same sandbox.
      "ptrace", "process_vm_readv", "process_vm_writev",
      // Undoing the mount layout bwrap built, or entering/creating other namespaces.
      "mount", "umount2", "pivot_root", "setns", "unshare",
      // Kernel code and the larger kernel attack surfaces.
      "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "bpf",
      "perf_event_open", "userfaultfd",
      // Kernel keyrings are not namespaced.
      "keyctl", "add_key", "request_key",
      // Whole-machine state.
      "reboot", "swapon", "swapoff", "acct", "quotactl",
      // File handles bypass the mount namespace's view of paths.
      "open_by_handle_at", "name_to_handle_at"};
  return names;
}

const std::string& seccomp_bpf_program() {
  static const std::string program = build_program();
  return program;
}

int seccomp_bpf_fd() {
  const std::string& program = seccomp_bpf_program();
  int fd = memfd_create("kjudge-seccomp", MFD_CLOEXEC);
  if (fd < 0) throw seccomp_error("memfd_create", errno);
  std::size_t done = 0;
  while (done < program.size()) {
    ssize_t n = write(fd, program.data() + done, program.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = n < 0 ? errno : EIO;
      close(fd);
      throw seccomp_error("write", err);
    }
    done += static_cast<std::size_t>(n);
  }
  if (lseek(fd, 0, SEEK_SET) != 0) {
    int err = errno;
    close(fd);
    throw seccomp_error("lseek", err);
  }
  return fd;
}

}  // namespace kjudge
