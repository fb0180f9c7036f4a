#include "run/spawn.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "run/close_fds.h"

namespace kjudge {
namespace {

// Where the child stopped, if it did: written by the child into the judge's memory, which it
// shares until exec, and read once clone has returned (the judge's thread waits for the exec).
enum class Stage { none, cwd, cgroup, exec };

struct Child {
  const SpawnPlan* plan;
  const char* const* candidates;
  std::size_t n_candidates;
  char** script_argv;  // {"/bin/sh", <the candidate>, argv[1..], nullptr}
  const sigset_t* mask;
  Stage stage = Stage::none;
  int err = 0;
  const char* what = nullptr;
};

// setrlimit for both soft and hard, so the step cannot raise its own limits back.
void set_limit(int resource, rlim_t value) {
  struct rlimit rl {
    value, value
  };
  setrlimit(resource, &rl);
}

[[noreturn]] void fail(Child& c, Stage stage, const char* what, int code) {
  c.stage = stage;
  c.err = errno;
  c.what = what;
  _exit(code);
}

// execvp's search, on what the judge prepared: the candidates in turn, a file without a "#!"
// through /bin/sh, EACCES reported where any candidate was not executable.
void exec_step(Child& c) {
  bool eacces = false;
  int last = ENOENT;
  for (std::size_t i = 0; i < c.n_candidates; ++i) {
    execve(c.candidates[i], c.plan->argv, c.plan->envp);
    if (errno == ENOEXEC) {
      c.script_argv[1] = const_cast<char*>(c.candidates[i]);
      execve(c.script_argv[0], c.script_argv, c.plan->envp);
    }
    last = errno;
    if (last == EACCES) {
      eacces = true;
      continue;
    }
    if (last == ENOENT || last == ESTALE || last == ENOTDIR || last == ENODEV || last == ETIMEDOUT)
      continue;
    break;
  }
  errno = eacces ? EACCES : last;
}

// The child: system calls only, on its own stack.
int child_main(void* arg) {
  Child& c = *static_cast<Child*>(arg);
  const SpawnPlan& plan = *c.plan;
  // A handler is the judge's code on the judge's memory: none may run in the child. SIGPIPE
  // goes back to its default, as a shell would have it, whatever the judge chose for itself.
  for (int sig = 1; sig < NSIG; ++sig) {
    struct sigaction sa {};
    if (sigaction(sig, nullptr, &sa) != 0) continue;
    const bool handled =
        (sa.sa_flags & SA_SIGINFO) || (sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN);
    if (handled || sig == SIGPIPE) {
      struct sigaction dfl {};
      dfl.sa_handler = SIG_DFL;
      sigaction(sig, &dfl, nullptr);
    }
  }
  setpgid(0, 0);
  const int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (devnull >= 0) dup2(devnull, STDIN_FILENO);
  dup2(plan.output_fd, STDOUT_FILENO);
  dup2(plan.output_fd, STDERR_FILENO);
  if (plan.cwd && chdir(plan.cwd) != 0) fail(c, Stage::cwd, plan.cwd, 126);
  for (const char* procs : plan.cgroup_procs) {
    // "0" names the writer itself, in v1 and v2 alike.
    const int fd = open(procs, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, "0", 1) != 1) fail(c, Stage::cgroup, procs, 126);
    close(fd);
  }
  if (plan.limits) {
    const Limits& l = *plan.limits;
    // CPU seconds round up: 0.5 s rounded down to 0 would kill the step before it starts.
    set_limit(RLIMIT_CPU, static_cast<rlim_t>(l.cpu_s + 0.999));
    set_limit(RLIMIT_NPROC, static_cast<rlim_t>(l.processes));
    set_limit(RLIMIT_NOFILE, static_cast<rlim_t>(l.open_files));
    set_limit(RLIMIT_FSIZE, static_cast<rlim_t>(l.file_size_bytes));
    if (l.address_space_bytes > 0) set_limit(RLIMIT_AS, static_cast<rlim_t>(l.address_space_bytes));
    if (l.data_bytes > 0) set_limit(RLIMIT_DATA, static_cast<rlim_t>(l.data_bytes));
    set_limit(RLIMIT_CORE, 0);
  }
  for (int fd : plan.inherit_fds) {
    const int flags = fcntl(fd, F_GETFD);
    if (flags >= 0) fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC);
  }
  // Close-on-exec covers what the judge opens; this covers everything else in its process.
  close_fds_except(plan.inherit_fds.data(), plan.inherit_fds.size());
  // The step gets the signal mask the judge's thread had; all were blocked only for the clone.
  sigprocmask(SIG_SETMASK, c.mask, nullptr);
  exec_step(c);
  fail(c, Stage::exec, plan.argv[0], 127);
}

// Room for close_fds_except's listing buffer and the libc calls above, with a wide margin.
constexpr std::size_t kStackBytes = 256 * 1024;

}  // namespace

std::vector<std::string> exec_candidates(const std::string& file, const char* path) {
  if (file.empty()) return {};
  if (file.find('/') != std::string::npos) return {file};
  const std::string dirs = path ? path : "/bin:/usr/bin";
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (true) {
    const std::size_t end = std::min(dirs.find(':', pos), dirs.size());
    const std::string dir = dirs.substr(pos, end - pos);
    out.push_back(dir.empty() ? file : dir + "/" + file);
    if (end == dirs.size()) break;
    pos = end + 1;
  }
  return out;
}

Spawned spawn_step(const SpawnPlan& plan) {
  Spawned out;
  const char* path = nullptr;
  for (char* const* e = plan.envp; *e; ++e)
    if (std::strncmp(*e, "PATH=", 5) == 0) path = *e + 5;
  const std::vector<std::string> candidates = exec_candidates(plan.argv[0], path);
  std::vector<const char*> candidate_ptrs;
  for (const std::string& s : candidates) candidate_ptrs.push_back(s.c_str());
  std::vector<char*> script_argv = {const_cast<char*>("/bin/sh"), nullptr};
  for (char* const* a = plan.argv + 1; *a; ++a) script_argv.push_back(*a);
  script_argv.push_back(nullptr);

  void* stack = mmap(nullptr, kStackBytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
  if (stack == MAP_FAILED) {
    out.error = std::string("mmap: ") + std::strerror(errno);
    return out;
  }
  // No signal may reach the child before it has put the judge's handlers away.
  sigset_t all, mask;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &mask);
  Child child{&plan, candidate_ptrs.data(), candidate_ptrs.size(), script_argv.data(), &mask};
  const pid_t pid = clone(child_main, static_cast<char*>(stack) + kStackBytes,
                          CLONE_VM | CLONE_VFORK | SIGCHLD, &child);
  const int clone_errno = errno;
  pthread_sigmask(SIG_SETMASK, &mask, nullptr);
  munmap(stack, kStackBytes);
  if (pid < 0) {
    out.error = std::string("clone: ") + std::strerror(clone_errno);
    return out;
  }
  if (child.stage != Stage::none) {
    const char* doing = child.stage == Stage::cwd      ? "cannot enter"
                        : child.stage == Stage::cgroup ? "cannot join cgroup"
                                                       : "cannot run";
    out.child_message =
        std::string("kjudge: ") + doing + " " + child.what + ": " + std::strerror(child.err) + "\n";
  }
  out.pid = pid;
  return out;
}

}  // namespace kjudge
