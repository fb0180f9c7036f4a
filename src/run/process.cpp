#include "run/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "run/leftovers.h"
#include "run/spawn.h"

extern char** environ;

namespace kjudge {
namespace {

using Clock = std::chrono::steady_clock;

// Keeps the first and last halves of a stream that may be far larger than the cap, so that both
// the first compiler error and the final test message survive.
class CappedBuffer {
 public:
  explicit CappedBuffer(std::size_t cap) : head_cap_(cap / 2), tail_cap_(cap - cap / 2) {}

  void append(const char* data, std::size_t n) {
    total_ += n;
    std::size_t to_head = std::min(n, head_cap_ - head_.size());
    head_.append(data, to_head);
    data += to_head;
    n -= to_head;
    if (n == 0) return;
    tail_.append(data, n);
    if (tail_.size() > 2 * tail_cap_) tail_.erase(0, tail_.size() - tail_cap_);
  }

  std::size_t total() const { return total_; }
  bool truncated() const { return total_ > head_.size() + std::min(tail_.size(), tail_cap_); }

  std::string str() const {
    std::string tail = tail_.size() > tail_cap_ ? tail_.substr(tail_.size() - tail_cap_) : tail_;
    if (!truncated()) return head_ + tail;
    std::size_t cut = total_ - head_.size() - tail.size();
    return head_ + "\n[... kjudge: " + std::to_string(cut) + " bytes of output truncated ...]\n" +
           tail;
  }

 private:
  std::size_t head_cap_, tail_cap_;
  std::string head_, tail_;
  std::size_t total_ = 0;
};

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double rusage_seconds(const struct rusage& ru) {
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
         ru.ru_stime.tv_usec / 1e6;
}

// Bytes of regular files under `dir`, without following links.
std::uintmax_t tree_bytes(const std::filesystem::path& dir) {
  std::uintmax_t total = 0;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(
           dir, std::filesystem::directory_options::skip_permission_denied, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code fe;
    if (it->is_regular_file(fe) && !it->is_symlink(fe)) total += it->file_size(fe);
  }
  return total;
}

}  // namespace

ProcessResult run_process(const ProcessSpec& spec) {
  ProcessResult result;
  if (spec.argv.empty()) {
    result.error = "empty command";
    return result;
  }

  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    result.error = std::string("pipe: ") + std::strerror(errno);
    return result;
  }

  std::vector<char*> argv;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const std::string marker = next_step_marker();
  std::vector<std::string> env_strings;
  if (spec.env) {
    env_strings = *spec.env;
  } else {
    for (char** e = environ; *e; ++e) env_strings.emplace_back(*e);
  }
  std::erase_if(env_strings, [](const std::string& e) {
    return e.rfind(std::string(kStepMarkerVar) + "=", 0) == 0;
  });
  env_strings.push_back(std::string(kStepMarkerVar) + "=" + marker);
  std::vector<char*> envp;
  for (const auto& e : env_strings) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  std::vector<std::string> cgroup_procs_files;
  for (const auto& dir : spec.cgroups)
    cgroup_procs_files.push_back((dir / "cgroup.procs").string());
  SpawnPlan plan;
  plan.argv = argv.data();
  plan.envp = envp.data();
  if (!spec.cwd.empty()) plan.cwd = spec.cwd.c_str();
  plan.output_fd = pipe_fds[1];
  for (const auto& f : cgroup_procs_files) plan.cgroup_procs.push_back(f.c_str());
  if (spec.limits) plan.limits = &*spec.limits;
  plan.inherit_fds = spec.inherit_fds;

  // Not posix_spawn: the child joins its cgroups and takes its limits before exec (spawn.h).
  auto start = Clock::now();
  Spawned spawned = spawn_step(plan);
  if (spawned.pid < 0) {
    result.error = std::move(spawned.error);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return result;
  }
  const pid_t pid = spawned.pid;
  // The child made its group before exec, and spawn_step returned only after that exec: a kill
  // from here on reaches the whole group.
  close(pipe_fds[1]);
  result.started = true;

  // The group first (one signal), then whatever left it.
  auto kill_leftovers = [&] {
    kill(-pid, SIGKILL);
    if (spec.sealed_in_cgroups && !spec.cgroups.empty())
      kill_cgroup_members(spec.cgroups);
    else
      kill_marked(marker);
  };

  CappedBuffer out(spec.output_cap);
  out.append(spawned.child_message.data(), spawned.child_message.size());
  auto deadline = start + std::chrono::duration_cast<Clock::duration>(
                              std::chrono::duration<double>(spec.timeout_s));
  bool pipe_open = true;
  bool exited = false;
  const bool watching = !spec.watch_dir.empty() && spec.watch_dir_max_bytes > 0;
  Clock::time_point next_watch = start;
  Clock::time_point exited_at{};
  int status = 0;
  struct rusage ru {};
  char buf[65536];
  const auto cap = start + std::chrono::duration_cast<Clock::duration>(
                               std::chrono::duration<double>(spec.starved_wall_cap_s));
  // Past the wall limit: whether the step is still under its limit in CPU time, and so waiting
  // for a core rather than working (ProcessSpec::starved_wall_cap_s).
  auto starved = [&](ProcessResult& res) {
    if (spec.starved_wall_cap_s <= spec.timeout_s || Clock::now() >= cap) return false;
    std::optional<double> cpu = spec.tree_cpu_s ? spec.tree_cpu_s() : marked_cpu_seconds(marker);
    if (!cpu || *cpu >= spec.timeout_s) return false;
    res.cpu_limited = true;
    return true;
  };
  const auto stall_cap = start + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(spec.stall_wall_cap_s));
  // Past the wall limit: whether the machine, not the step, used the time it had over the limit
  // (ProcessSpec::stall_wall_cap_s).
  auto stalled = [&](ProcessResult& res) {
    const auto& lost_now = spec.grace_lost_s ? spec.grace_lost_s : spec.lost_s;
    if (spec.stall_wall_cap_s <= spec.timeout_s || !lost_now || Clock::now() >= stall_cap)
      return false;
    std::optional<double> lost = lost_now();
    if (!lost) return false;
    const double clear = seconds_since(start) - *lost;
    if (clear >= spec.timeout_s || (spec.condemn_clear_s > 0 && clear >= spec.condemn_clear_s))
      return false;
    res.stall_graced = true;
    return true;
  };

  while (!exited || pipe_open) {
    if (!exited) {
      pid_t r = wait4(pid, &status, WNOHANG, &ru);
      if (r == pid) {
        exited = true;
        exited_at = Clock::now();
        // Descendants (daemons, background jobs) die with the group, or by their cgroup or
        // marker if they left it; their copy of the pipe then closes and the read loop ends instead
        // of waiting for them.
        kill_leftovers();
      }
    }
    if (!exited && watching && Clock::now() >= next_watch) {
      next_watch = Clock::now() + std::chrono::milliseconds(250);
      if (tree_bytes(spec.watch_dir) > spec.watch_dir_max_bytes) {
        result.limit_exceeded = "wrote more than " +
                                std::to_string(spec.watch_dir_max_bytes >> 20) +
                                " MiB into its workspace";
        kill_leftovers();
        wait4(pid, &status, 0, &ru);
        exited = true;
        exited_at = Clock::now();
      }
    }
    if (!exited && Clock::now() >= deadline && (starved(result) || stalled(result))) {
      deadline = Clock::now() + std::chrono::milliseconds(250);  // look at its CPU time again
    } else if (!exited && Clock::now() >= deadline) {
      result.timed_out = true;
      kill_leftovers();
      wait4(pid, &status, 0, &ru);
      exited = true;
      exited_at = Clock::now();
    }
    if (pipe_open) {
      struct pollfd pfd {
        pipe_fds[0], POLLIN, 0
      };
      int pr = poll(&pfd, 1, exited ? 200 : 20);
      if (pr > 0) {
        ssize_t n = read(pipe_fds[0], buf, sizeof buf);
        if (n > 0) {
          out.append(buf, static_cast<std::size_t>(n));
        } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
          pipe_open = false;
        }
      }
      // A descendant that escaped the group may hold the pipe open, silent or chattering: give
      // it a short grace to flush what the child wrote, then stop reading.
      if (exited && (pr == 0 || seconds_since(exited_at) > 2.0)) pipe_open = false;
    } else if (!exited) {
      usleep(5000);
    }
  }
  close(pipe_fds[0]);

  // A step may have written its fill between two looks: one more, after the fact.
  if (watching && result.limit_exceeded.empty() &&
      tree_bytes(spec.watch_dir) > spec.watch_dir_max_bytes) {
    result.limit_exceeded = "wrote more than " + std::to_string(spec.watch_dir_max_bytes >> 20) +
                            " MiB into its workspace";
  }
  result.wall_s = seconds_since(start);
  if (spec.lost_s)
    if (std::optional<double> lost = spec.lost_s()) result.lost_s = *lost;
  result.cpu_s = rusage_seconds(ru);
  if (!result.timed_out) {
    if (WIFEXITED(status)) {
      result.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      result.signal = WTERMSIG(status);
    }
  }
  result.output = out.str();
  result.truncated = out.truncated();
  result.output_bytes = out.total();
  return result;
}

ProcessResult run_shell(const std::string& command, const std::filesystem::path& cwd,
                        double timeout_s, std::size_t output_cap,
                        std::optional<std::vector<std::string>> env) {
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", command};
  spec.cwd = cwd;
  spec.timeout_s = timeout_s;
  spec.output_cap = output_cap;
  spec.env = std::move(env);
  return run_process(spec);
}

std::string first_output_line(const std::string& output, std::size_t cap) {
  std::size_t a = output.find_first_not_of("\n\r ");
  if (a == std::string::npos) return "";
  return output.substr(a, output.find('\n', a) - a).substr(0, cap);
}

}  // namespace kjudge
