#pragma once
// The link between the checker and the worker of an isolated task run (`kjudge task run
// --isolate`, docs/tasks.md): the checker (the harness with the task's reference, the result
// channel and its nonce) starts the worker (the submission and a thin loop, nothing else) as a
// process of its own and talks to it over two pipes, one text line a message. The worker never
// has the channel, the nonce, the reference's outputs or the checker's memory: the checker makes
// itself non-dumpable before starting it, so neither /proc/<pid>/mem nor ptrace (also refused by
// the sandbox's seccomp filter) reaches it from a process of the same user.
//
// Plain C++ and POSIX, no CUDA: the judge's tests run it on machines without a GPU.
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

extern char** environ;

namespace kj {

// Bytes as lowercase hex and back (the CUDA IPC handles travel in text lines).
inline std::string to_hex(const void* p, std::size_t n) {
  static const char digits[] = "0123456789abcdef";
  const auto* b = static_cast<const unsigned char*>(p);
  std::string s;
  s.reserve(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    s += digits[b[i] >> 4];
    s += digits[b[i] & 15];
  }
  return s;
}

inline bool from_hex(const std::string& s, void* p, std::size_t n) {
  if (s.size() != 2 * n) return false;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  auto* b = static_cast<unsigned char*>(p);
  for (std::size_t i = 0; i < n; ++i) {
    const int hi = nibble(s[2 * i]), lo = nibble(s[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    b[i] = static_cast<unsigned char>(hi << 4 | lo);
  }
  return true;
}

// One end of the link: lines out on `out`, lines in from `in`.
class LineLink {
 public:
  LineLink() = default;
  LineLink(int in, int out) : in_(in), out_(out) {}

  bool send(const std::string& line) const {
    std::string s = line + "\n";
    const char* p = s.data();
    std::size_t left = s.size();
    while (left > 0) {
      const ssize_t w = write(out_, p, left);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) return false;
      p += w;
      left -= static_cast<std::size_t>(w);
    }
    return true;
  }

  // The next line (without its newline); nullopt at end of file, on an error, or when none
  // came within `timeout_ms` (< 0: wait for ever). `timed_out` says which. A line longer than
  // `max_bytes` ends the link: nothing the other side sends may grow this process without bound.
  std::optional<std::string> receive(int timeout_ms = -1, bool* timed_out = nullptr,
                                     std::size_t max_bytes = 1 << 16) {
    if (timed_out) *timed_out = false;
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(timeout_ms < 0 ? 0 : timeout_ms);
    for (;;) {
      const std::size_t nl = buf_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        return line;
      }
      if (buf_.size() > max_bytes) return std::nullopt;
      int wait = -1;
      if (timeout_ms >= 0) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                              deadline - std::chrono::steady_clock::now())
                              .count();
        if (left <= 0) {
          if (timed_out) *timed_out = true;
          return std::nullopt;
        }
        wait = static_cast<int>(left);
      }
      pollfd p{in_, POLLIN, 0};
      const int n = poll(&p, 1, wait);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return std::nullopt;
      if (n == 0) continue;  // the deadline check above decides
      char chunk[4096];
      const ssize_t r = read(in_, chunk, sizeof chunk);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return std::nullopt;
      buf_.append(chunk, static_cast<std::size_t>(r));
    }
  }

  // Closes both descriptors: the other side reads end of file.
  void close_both() {
    for (int* fd : {&in_, &out_}) {
      if (*fd >= 0) ::close(*fd);
      *fd = -1;
    }
  }

 private:
  int in_ = -1, out_ = -1;
  std::string buf_;
};

// The words of a line, split at single spaces; the last field keeps the rest of the line when
// `max_fields` is reached (a case's text, an error message).
inline std::vector<std::string> split_fields(const std::string& line, std::size_t max_fields = 64) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at <= line.size()) {
    if (out.size() + 1 == max_fields) {
      out.push_back(line.substr(at));
      break;
    }
    const std::size_t sp = line.find(' ', at);
    out.push_back(line.substr(at, sp == std::string::npos ? std::string::npos : sp - at));
    if (sp == std::string::npos) break;
    at = sp + 1;
  }
  return out;
}

// A started worker: its pid and the checker's end of the link.
struct WorkerProcess {
  pid_t pid = -1;
  LineLink link;
  std::string error;  // why it could not be started
};

// The judge's CUPTI profiler for the worker (task/run.cpp, benchmark and leaderboard modes): the
// judge hands the checker the library and a channel descriptor, which holds the run's nonce
// until a profiler takes it, and the checker hands them to the worker only, the one process
// with the submission's GPU work. The checker itself runs without the profiler and never reads
// the descriptor. The worker gets them as the profiler reads them (LD_PRELOAD,
// KJUDGE_PROFILE_FD on descriptor 5, the early header), and the checker keeps no copy of the
// descriptor.
struct WorkerProfiler {
  std::string library;
  int fd = -1;
};

// The variable's value, taken out of this process's environment (and blanked in place, as the
// channel's are: /proc/self/environ shows the block, not what unsetenv leaves).
inline std::string take_env(const char* name) {
  char* v = getenv(name);
  if (v == nullptr) return "";
  std::string copy = v;
  std::memset(v, 0, copy.size());
  unsetenv(name);
  return copy;
}

// KJUDGE_WORKER_PROFILER and KJUDGE_WORKER_PROFILE_FD, taken; nullopt unless both name
// something usable.
inline std::optional<WorkerProfiler> take_worker_profiler() {
  WorkerProfiler p;
  p.library = take_env("KJUDGE_WORKER_PROFILER");
  const std::string fd = take_env("KJUDGE_WORKER_PROFILE_FD");
  if (p.library.empty() || fd.empty()) return std::nullopt;
  char* end = nullptr;
  const long n = std::strtol(fd.c_str(), &end, 10);
  if (end == fd.c_str() || *end != '\0' || n < 0 || n > 1 << 20) return std::nullopt;
  if (fcntl(static_cast<int>(n), F_GETFD) < 0) return std::nullopt;
  p.fd = static_cast<int>(n);
  return p;
}

// The profiler's descriptor in the worker.
inline constexpr int kWorkerProfileFd = 5;

// Adds to `fa` the closing of every descriptor from `first` up. glibc 2.34 has it as one
// action; before that, each descriptor open now (a spawn from a threaded process may still race
// a descriptor opened meanwhile, which close-on-exec, the judge's and the harness's rule,
// covers).
inline int close_from(posix_spawn_file_actions_t& fa, int first) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  return posix_spawn_file_actions_addclosefrom_np(&fa, first);
#else
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return errno;
  const int own = dirfd(dir);
  std::vector<int> fds;
  while (const dirent* e = readdir(dir)) {
    const int fd = std::atoi(e->d_name);
    if (e->d_name[0] != '.' && fd >= first && fd != own) fds.push_back(fd);
  }
  closedir(dir);
  for (int fd : fds)
    if (int err = posix_spawn_file_actions_addclose(&fa, fd); err != 0) return err;
  return 0;
#endif
}

// Starts `program` with its link on descriptors 3 (from the checker) and 4 (to the checker),
// argv {program, "3", "4", extra...}, and the environment of this process minus every
// KJUDGE_* variable and LD_PRELOAD (nothing of the judge's channels). This process is made
// non-dumpable first: the worker, running as the same user, can then read neither its memory
// nor its descriptors through /proc. Every other descriptor of this process is closed in the
// worker (close_from), so it inherits none of them, close-on-exec or not.
inline WorkerProcess start_worker(const std::string& program, const std::vector<std::string>& extra,
                                  const WorkerProfiler* profiler = nullptr) {
  WorkerProcess w;
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
    w.error = std::string("prctl(PR_SET_DUMPABLE): ") + std::strerror(errno);
    return w;
  }
  int to_worker[2], from_worker[2];
  if (pipe2(to_worker, O_CLOEXEC) != 0) {
    w.error = std::string("pipe: ") + std::strerror(errno);
    return w;
  }
  if (pipe2(from_worker, O_CLOEXEC) != 0) {
    w.error = std::string("pipe: ") + std::strerror(errno);
    close(to_worker[0]);
    close(to_worker[1]);
    return w;
  }
  // Every end above 9, so that neither dup2 below overwrites the other's source.
  for (int* fd : {&to_worker[0], &to_worker[1], &from_worker[0], &from_worker[1]}) {
    if (*fd >= 10) continue;
    const int high = fcntl(*fd, F_DUPFD_CLOEXEC, 10);
    if (high >= 0) {
      close(*fd);
      *fd = high;
    }
  }
  std::vector<std::string> args = {program, "3", "4"};
  args.insert(args.end(), extra.begin(), extra.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string kv = *e;
    if (kv.find('=') == std::string::npos) continue;  // a taken variable (channel.h)
    if (kv.rfind("KJUDGE_", 0) == 0 || kv.rfind("LD_PRELOAD=", 0) == 0 ||
        kv.rfind("NVTX_INJECTION", 0) == 0)
      continue;
    env.push_back(kv);
  }
  // Above 9 too, and close-on-exec here: the dup2 below gives the worker its only copy.
  int profile_fd = -1;
  if (profiler != nullptr && profiler->fd >= 0) {
    profile_fd = fcntl(profiler->fd, F_DUPFD_CLOEXEC, 10);
    if (profile_fd < 0) {
      w.error = std::string("the profiler's descriptor: ") + std::strerror(errno);
      close(to_worker[0]);
      close(to_worker[1]);
      close(from_worker[0]);
      close(from_worker[1]);
      return w;
    }
    close(profiler->fd);
    env.push_back("LD_PRELOAD=" + profiler->library);
    env.push_back("NVTX_INJECTION64_PATH=" + profiler->library);
    env.push_back("KJUDGE_PROFILE_FD=" + std::to_string(kWorkerProfileFd));
    env.push_back("KJUDGE_PROFILE_EARLY_HEADER=1");
  }
  std::vector<char*> envp;
  for (auto& kv : env) envp.push_back(kv.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  // dup2 onto 3 and 4 clears close-on-exec there.
  posix_spawn_file_actions_adddup2(&fa, to_worker[0], 3);
  posix_spawn_file_actions_adddup2(&fa, from_worker[1], 4);
  if (profile_fd >= 0) posix_spawn_file_actions_adddup2(&fa, profile_fd, kWorkerProfileFd);
  // Nothing else of this process's: every descriptor past the link's (and the profiler's) is
  // closed in the worker, close-on-exec or not (a CUDA driver's, one the judge's own parent
  // left open).
  const int first_closed = profile_fd >= 0 ? kWorkerProfileFd + 1 : 5;
  if (int err = close_from(fa, first_closed); err != 0) {
    posix_spawn_file_actions_destroy(&fa);
    close(to_worker[0]);
    close(to_worker[1]);
    close(from_worker[0]);
    close(from_worker[1]);
    if (profile_fd >= 0) close(profile_fd);
    w.error = std::string("cannot plan the worker's descriptors: ") + std::strerror(err);
    return w;
  }
  const int rc = posix_spawn(&w.pid, program.c_str(), &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  close(to_worker[0]);
  close(from_worker[1]);
  if (profile_fd >= 0) close(profile_fd);
  if (rc != 0) {
    w.error = "cannot start " + program + ": " + std::strerror(rc);
    w.pid = -1;
    close(to_worker[1]);
    close(from_worker[0]);
    return w;
  }
  w.link = LineLink(from_worker[0], to_worker[1]);
  return w;
}

// Ends the link and lets the worker exit on its own (its exit handlers write the profiler's
// record), for at most `wait_ms`; then kills it. The worker's ending in words, as below.
inline std::string end_worker(WorkerProcess& w, int wait_ms) {
  if (w.pid <= 0) return "unknown";
  w.link.close_both();  // end of file on its descriptor 3: its loop returns
  int status = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  for (;;) {
    const pid_t r = waitpid(w.pid, &status, WNOHANG);
    if (r == w.pid) break;
    if (r < 0) return "unknown";
    if (std::chrono::steady_clock::now() >= until) {
      kill(w.pid, SIGKILL);
      waitpid(w.pid, &status, 0);
      w.pid = -1;
      return "killed after " + std::to_string(wait_ms) + " ms";
    }
    usleep(2000);
  }
  w.pid = -1;
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
  return "unknown";
}

// How a worker ended, in words ("exit 3", "signal 11 (Segmentation fault)"); waits for it.
inline std::string worker_ending(pid_t pid) {
  int status = 0;
  if (pid <= 0 || waitpid(pid, &status, 0) != pid) return "unknown";
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return "signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  return "unknown";
}

}  // namespace kj
