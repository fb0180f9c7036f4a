#include "run/leftovers.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <set>
#include <sstream>

namespace kjudge {
namespace {

// Reads all of `path` into `buf` (reused across calls: one scan reads every process's
// environment, and a stream per file was most of what the scan cost the judge). False when it
// cannot be opened, e.g. the process is gone.
bool read_whole(const char* path, std::string& buf) {
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  buf.clear();
  char chunk[16384];
  for (;;) {
    const ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    buf.append(chunk, static_cast<std::size_t>(n));
  }
  close(fd);
  return true;
}

// Whether the NUL-separated environment block `env` holds the entry `needle` exactly.
bool holds_entry(const std::string& env, const std::string& needle) {
  for (std::size_t pos = 0; pos < env.size();) {
    std::size_t end = env.find('\0', pos);
    if (end == std::string::npos) end = env.size();
    if (env.compare(pos, end - pos, needle) == 0) return true;
    pos = end + 1;
  }
  return false;
}

// "/proc/<pid>/<file>" into `out`, which holds enough for any pid.
const char* proc_path(char (&out)[64], long pid, const char* file) {
  char* p = out;
  std::memcpy(p, "/proc/", 6);
  p += 6;
  p = std::to_chars(p, out + 40, pid).ptr;
  *p++ = '/';
  const std::size_t n = std::strlen(file);
  std::memcpy(p, file, n + 1);
  return out;
}

// Calls fn(pid) for every process but this one and those in `skip` whose environment holds
// `marker`.
template <typename Fn>
void for_each_marked(const std::string& marker, Fn&& fn, const std::set<pid_t>& skip = {}) {
  const std::string needle = std::string(kStepMarkerVar) + "=" + marker;
  const pid_t self = getpid();
  DIR* proc = opendir("/proc");
  if (!proc) return;
  std::string env;
  env.reserve(16384);
  char path[64];
  while (const struct dirent* e = readdir(proc)) {
    const char* name = e->d_name;
    if (*name < '1' || *name > '9') continue;
    long pid = 0;
    const auto [end, ec] = std::from_chars(name, name + std::strlen(name), pid);
    if (ec != std::errc() || *end != '\0') continue;
    if (pid == self || skip.count(static_cast<pid_t>(pid))) continue;
    if (!read_whole(proc_path(path, pid, "environ"), env)) continue;
    if (holds_entry(env, needle)) fn(static_cast<pid_t>(pid));
  }
  closedir(proc);
}

// SIGKILLs every process whose environment holds `marker` and that is not in `signaled`
// (already killed, maybe not yet gone); returns how many it newly killed.
int kill_marked_once(const std::string& marker, std::set<pid_t>& signaled) {
  std::set<pid_t> newly;
  for_each_marked(
      marker,
      [&](pid_t pid) {
        if (kill(pid, SIGKILL) == 0) newly.insert(pid);
      },
      signaled);
  signaled.insert(newly.begin(), newly.end());
  return static_cast<int>(newly.size());
}

std::vector<pid_t> procs_of(const std::filesystem::path& dir, std::string& buf) {
  std::vector<pid_t> out;
  if (!read_whole((dir / "cgroup.procs").c_str(), buf)) return out;
  const char* p = buf.data();
  const char* end = p + buf.size();
  while (p < end) {
    long pid = 0;
    auto [next, ec] = std::from_chars(p, end, pid);
    if (ec == std::errc() && pid > 0) out.push_back(static_cast<pid_t>(pid));
    p = next + 1;
  }
  return out;
}

}  // namespace

std::string next_step_marker() {
  static std::atomic<unsigned long> counter{0};
  return std::to_string(getpid()) + "." + std::to_string(counter++);
}

// A marked process may be forking while we look (a daemon's second fork): look again until a
// pass finds no new one. A process already sent SIGKILL cannot fork again, so it is not counted
// a second time while it dies: counting it made every pass look busy, and on a loaded machine
// the 50 passes over /proc took seconds.
void kill_marked(const std::string& marker) {
  std::set<pid_t> signaled;
  for (int pass = 0; pass < 50 && kill_marked_once(marker, signaled) > 0; ++pass) usleep(2000);
}

std::optional<double> marked_cpu_seconds(const std::string& marker) {
  static const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  double total = 0;
  bool found = false;
  std::string stat;
  char path[64];
  for_each_marked(marker, [&](pid_t pid) {
    if (!read_whole(proc_path(path, pid, "stat"), stat)) return;
    // The command name may hold spaces and parentheses: fields count from the last ')'.
    std::size_t close = stat.rfind(')');
    if (close == std::string::npos) return;
    std::istringstream fields(stat.substr(close + 1));
    std::string skip;
    for (int i = 3; i <= 13; ++i) fields >> skip;  // state .. cmajflt
    unsigned long long utime = 0, stime = 0;
    long long cutime = 0, cstime = 0;
    if (!(fields >> utime >> stime >> cutime >> cstime)) return;
    total += static_cast<double>(utime + stime) + static_cast<double>(cutime + cstime);
    found = true;
  });
  if (!found) return std::nullopt;
  return total / ticks;
}

void kill_cgroup_members(const std::vector<std::filesystem::path>& dirs) {
  std::string buf;
  for (const std::filesystem::path& dir : dirs) {
    // cgroup v2's cgroup.kill kills the whole group at once, forks in flight included.
    const int fd = open((dir / "cgroup.kill").c_str(), O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
      const bool done = write(fd, "1", 1) == 1;
      close(fd);
      if (done) continue;
    }
    // Elsewhere one pid at a time; a pass that finds no new one ends it (as kill_marked).
    std::set<pid_t> signaled;
    for (int pass = 0; pass < 50; ++pass) {
      bool any = false;
      for (pid_t pid : procs_of(dir, buf))
        if (pid != getpid() && signaled.insert(pid).second && kill(pid, SIGKILL) == 0) any = true;
      if (!any) break;
      usleep(2000);
    }
  }
}

}  // namespace kjudge
