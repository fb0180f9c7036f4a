#include "run/cgroup.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>

namespace kjudge {

namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Writes with one write(2), as cgroup files want, and reports failure (an ofstream would hide
// the errno, e.g. EBUSY from subtree_control).
bool write_file(const fs::path& p, const std::string& value) {
  int fd = open(p.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = write(fd, value.data(), value.size()) == static_cast<ssize_t>(value.size());
  int saved = errno;
  close(fd);
  errno = saved;
  return ok;
}

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  std::string w;
  while (in >> w) out.push_back(w);
  return out;
}

bool contains(const std::vector<std::string>& v, const std::string& x) {
  for (const auto& e : v)
    if (e == x) return true;
  return false;
}

std::vector<pid_t> procs_of(const fs::path& dir) {
  std::vector<pid_t> out;
  std::ifstream in(dir / "cgroup.procs");
  long pid;
  while (in >> pid) out.push_back(static_cast<pid_t>(pid));
  return out;
}

// A key's number in a flat keyed file such as memory.events ("oom_kill 3").
std::optional<std::uint64_t> keyed_value(const fs::path& file, const std::string& key) {
  std::ifstream in(file);
  std::string k;
  std::uint64_t v;
  while (in >> k >> v)
    if (k == key) return v;
  return std::nullopt;
}

// Kills everything in `dir` until it can be removed (a process forking while we kill is caught
// on the next pass; pids.max bounds the passes).
void empty_and_remove(const fs::path& dir) {
  if (fs::exists(dir / "cgroup.kill")) write_file(dir / "cgroup.kill", "1");
  for (int pass = 0; pass < 500; ++pass) {
    if (rmdir(dir.c_str()) == 0 || errno == ENOENT) return;
    for (pid_t pid : procs_of(dir)) kill(pid, SIGKILL);
    usleep(2000);
  }
}

// Groups named "<pid>.<n>" whose judge is gone are leftovers of a crash.
void remove_stale(const fs::path& parent) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(parent, ec)) {
    if (!e.is_directory()) continue;
    const std::string name = e.path().filename().string();
    const std::size_t dot = name.find('.');
    if (dot == std::string::npos || dot == 0) continue;
    const long pid = std::strtol(name.substr(0, dot).c_str(), nullptr, 10);
    if (pid <= 0 || (kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH))
      empty_and_remove(e.path());
  }
}

struct Mounts {
  fs::path v2;  // the cgroup2 mount
  fs::path v1_pids, v1_memory;
};

Mounts read_mounts(const fs::path& mounts_file) {
  Mounts m;
  std::ifstream in(mounts_file);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> f = words(line);
    if (f.size() < 4) continue;
    if (f[2] == "cgroup2" && m.v2.empty()) m.v2 = f[1];
    if (f[2] == "cgroup") {
      std::string opts = "," + f[3] + ",";
      if (opts.find(",pids,") != std::string::npos) m.v1_pids = f[1];
      if (opts.find(",memory,") != std::string::npos) m.v1_memory = f[1];
    }
  }
  return m;
}

// The judge's own group per hierarchy: "0" for v2, else the controller name.
std::string own_path(const fs::path& self_cgroup_file, const std::string& controller) {
  std::ifstream in(self_cgroup_file);
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t a = line.find(':');
    const std::size_t b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1);
    const std::string path = line.substr(b + 1);
    if (controller == "0") {
      if (line.substr(0, a) == "0" && controllers.empty()) return path;
      continue;
    }
    std::string list = controllers;
    for (char& ch : list)
      if (ch == ',') ch = ' ';
    if (contains(words(list), controller)) return path;
  }
  return "";
}

fs::path join(const fs::path& mount, const std::string& own) {
  std::string rel = own;
  while (!rel.empty() && rel.front() == '/') rel.erase(rel.begin());
  return rel.empty() ? mount : mount / rel;
}

// v1: <mount>/<own>/kjudge must be creatable; no controller switching exists there.
fs::path prepare_v1(const fs::path& mount, const std::string& own, bool prepare, std::string& why) {
  if (mount.empty()) return {};
  const fs::path parent = join(mount, own) / "kjudge";
  if (!prepare) return parent;
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec || access(parent.c_str(), W_OK) != 0) {
    why += "cannot create " + parent.string() + " (" + (ec ? ec.message() : "not writable") + "); ";
    return {};
  }
  remove_stale(parent);
  return parent;
}

// v2: step groups need their parent to have the controllers enabled in its subtree_control,
// all the way down from the judge's own group.
std::vector<std::string> prepare_v2(const fs::path& mount, const std::string& own, bool prepare,
                                    fs::path& parent, std::string& why) {
  fs::path self = join(mount, own);
  // A judge started from a shell an earlier judge moved into its `judge` leaf uses the same
  // place rather than nesting one level deeper each time.
  if (self.filename() == "judge" && fs::exists(self.parent_path() / "kjudge"))
    self = self.parent_path();
  std::vector<std::string> available = words(read_file(self / "cgroup.controllers"));
  if (prepare) {
    // A controller the machine has but the judge's group was not given (a supervisor enabled
    // only memory, say) is switched on down the ancestry. This sets no limit on anything; it
    // fails, harmlessly, where an ancestor holds processes itself.
    const std::vector<std::string> machine_has = words(read_file(mount / "cgroup.controllers"));
    const fs::path rel = self.lexically_relative(mount);
    for (const char* c : {"pids", "memory"}) {
      if (!contains(machine_has, c) || contains(available, c)) continue;
      fs::path at = mount;
      for (const auto& part : rel) {
        if (part == "." || part.empty()) break;
        if (!contains(words(read_file(at / "cgroup.subtree_control")), c) &&
            !write_file(at / "cgroup.subtree_control", std::string("+") + c))
          break;
        at /= part;
      }
    }
    available = words(read_file(self / "cgroup.controllers"));
  }
  std::vector<std::string> wanted;
  for (const char* c : {"pids", "memory"})
    if (contains(available, c)) wanted.push_back(c);
  if (wanted.empty()) {
    why += "the judge's cgroup " + self.string() + " offers neither pids nor memory; ";
    return {};
  }
  parent = self / "kjudge";
  if (!prepare) return wanted;
  std::string enable;
  for (const auto& c : wanted) enable += (enable.empty() ? "+" : " +") + c;

  std::vector<std::string> enabled = words(read_file(self / "cgroup.subtree_control"));
  bool all_on = true;
  for (const auto& c : wanted) all_on = all_on && contains(enabled, c);
  if (!all_on && !write_file(self / "cgroup.subtree_control", enable)) {
    if (errno != EBUSY) {
      why += "cannot enable " + enable + " in " + (self / "cgroup.subtree_control").string() +
             ": " + std::strerror(errno) + "; ";
      return {};
    }
    // "No internal processes": move the group's processes, the judge among them, into a leaf.
    const fs::path leaf = self / "judge";
    std::error_code ec;
    fs::create_directory(leaf, ec);
    for (int pass = 0; pass < 20; ++pass) {
      std::vector<pid_t> procs = procs_of(self);
      if (procs.empty()) break;
      for (pid_t p : procs) write_file(leaf / "cgroup.procs", std::to_string(p));
    }
    if (!write_file(self / "cgroup.subtree_control", enable)) {
      why += "cannot enable " + enable + " in " + (self / "cgroup.subtree_control").string() +
             " even after moving its processes to " + leaf.string() + ": " + std::strerror(errno) +
             "; ";
      return {};
    }
  }
  std::error_code ec;
  fs::create_directory(parent, ec);
  if (ec || !write_file(parent / "cgroup.subtree_control", enable)) {
    // Another judge may have enabled them already; the files tell.
    std::vector<std::string> now = words(read_file(parent / "cgroup.subtree_control"));
    std::vector<std::string> ok;
    for (const auto& c : wanted)
      if (contains(now, c)) ok.push_back(c);
    if (ok.size() != wanted.size())
      why += "cannot enable " + enable + " in " + parent.string() + "; ";
    wanted = ok;
  }
  remove_stale(parent);
  return wanted;
}

}  // namespace

std::string CgroupPlace::describe() const {
  if (version == 0) return "no cgroup (" + (why.empty() ? std::string("none found") : why) + ")";
  std::string s = "cgroup v" + std::to_string(version) + ":";
  if (has_pids()) s += " pids";
  if (has_memory()) s += " memory";
  if (has_pids() && has_memory() && pids_parent != memory_parent)
    s += " under " + pids_parent.string() + " and " + memory_parent.string();
  else
    s += " under " + (has_memory() ? memory_parent : pids_parent).string();
  if (!why.empty()) s += " (" + why + ")";
  return s;
}

CgroupPlace find_cgroup_place(const fs::path& mounts_file, const fs::path& self_cgroup_file,
                              bool prepare) {
  CgroupPlace place;
  const Mounts m = read_mounts(mounts_file);
  // A hybrid system mounts an empty cgroup2 beside the v1 hierarchies: v2 counts only when it
  // holds one of the controllers.
  std::vector<std::string> v2_controllers;
  if (!m.v2.empty()) v2_controllers = words(read_file(m.v2 / "cgroup.controllers"));
  const bool v2 = contains(v2_controllers, "pids") || contains(v2_controllers, "memory");
  if (v2) {
    fs::path parent;
    std::vector<std::string> got =
        prepare_v2(m.v2, own_path(self_cgroup_file, "0"), prepare, parent, place.why);
    if (contains(got, "pids")) place.pids_parent = parent;
    if (contains(got, "memory")) place.memory_parent = parent;
    if (!got.empty()) place.version = 2;
  } else {
    place.pids_parent =
        prepare_v1(m.v1_pids, own_path(self_cgroup_file, "pids"), prepare, place.why);
    place.memory_parent =
        prepare_v1(m.v1_memory, own_path(self_cgroup_file, "memory"), prepare, place.why);
    if (m.v1_pids.empty()) place.why += "no pids hierarchy mounted; ";
    if (m.v1_memory.empty()) place.why += "no memory hierarchy mounted; ";
    if (place.has_pids() || place.has_memory()) place.version = 1;
  }
  while (!place.why.empty() && (place.why.back() == ' ' || place.why.back() == ';'))
    place.why.pop_back();
  return place;
}

const CgroupPlace& cgroup_place() {
  static CgroupPlace place;
  static std::once_flag once;
  std::call_once(once, [] {
    place = geteuid() == 0 ? find_cgroup_place("/proc/self/mounts", "/proc/self/cgroup", true)
                           : CgroupPlace{0, {}, {}, "the judge is not root"};
  });
  return place;
}

std::optional<StepCgroup> StepCgroup::create(const CgroupLimits& limits, const CgroupPlace& place) {
  static std::atomic<unsigned long> counter{0};
  const std::string name = std::to_string(getpid()) + "." + std::to_string(counter++);
  const bool want_pids = place.has_pids() && limits.max_pids > 0;
  const bool want_memory = place.has_memory() && limits.memory_bytes > 0;
  if (!want_pids && !want_memory) return std::nullopt;

  auto make = [&](const fs::path& parent) -> fs::path {
    const fs::path dir = parent / name;
    std::error_code ec;
    if (fs::exists(dir, ec)) empty_and_remove(dir);  // a leftover of a judge with our pid
    if (!fs::create_directory(dir, ec) || ec) return {};
    return dir;
  };
  fs::path pids_dir = want_pids ? make(place.pids_parent) : fs::path();
  fs::path memory_dir;
  if (want_memory)
    memory_dir = (want_pids && place.memory_parent == place.pids_parent)
                     ? pids_dir
                     : make(place.memory_parent);
  StepCgroup group(place.version, pids_dir, memory_dir);
  if (want_pids &&
      (pids_dir.empty() || !write_file(pids_dir / "pids.max", std::to_string(limits.max_pids))))
    return std::nullopt;  // `group` removes what was made
  if (want_memory) {
    if (memory_dir.empty()) return std::nullopt;
    const std::string bytes = std::to_string(limits.memory_bytes);
    if (place.version == 2) {
      if (!write_file(memory_dir / "memory.max", bytes)) return std::nullopt;
      // Swap would let a hog go on past the limit, slowly, dragging the machine with it.
      if (fs::exists(memory_dir / "memory.swap.max"))
        write_file(memory_dir / "memory.swap.max", "0");
      // On OOM, kill the whole step: half a test is no use, and no survivor keeps the memory.
      if (fs::exists(memory_dir / "memory.oom.group"))
        write_file(memory_dir / "memory.oom.group", "1");
    } else {
      if (!write_file(memory_dir / "memory.limit_in_bytes", bytes)) return std::nullopt;
      if (fs::exists(memory_dir / "memory.memsw.limit_in_bytes"))
        write_file(memory_dir / "memory.memsw.limit_in_bytes", bytes);
    }
  }
  return group;
}

StepCgroup::StepCgroup(StepCgroup&& other) noexcept
    : version_(other.version_),
      pids_dir_(std::move(other.pids_dir_)),
      memory_dir_(std::move(other.memory_dir_)) {
  other.pids_dir_.clear();
  other.memory_dir_.clear();
}

StepCgroup::~StepCgroup() {
  if (!pids_dir_.empty()) empty_and_remove(pids_dir_);
  if (!memory_dir_.empty() && memory_dir_ != pids_dir_) empty_and_remove(memory_dir_);
}

std::vector<fs::path> StepCgroup::dirs() const {
  std::vector<fs::path> out;
  if (!pids_dir_.empty()) out.push_back(pids_dir_);
  if (!memory_dir_.empty() && memory_dir_ != pids_dir_) out.push_back(memory_dir_);
  return out;
}

std::vector<pid_t> StepCgroup::pids() const {
  return procs_of(pids_dir_.empty() ? memory_dir_ : pids_dir_);
}

bool StepCgroup::oom_killed() const {
  if (memory_dir_.empty()) return false;
  const fs::path file = memory_dir_ / (version_ == 2 ? "memory.events" : "memory.oom_control");
  std::optional<std::uint64_t> n = keyed_value(file, "oom_kill");
  return n && *n > 0;
}

std::optional<std::uint64_t> StepCgroup::memory_peak() const {
  if (memory_dir_.empty()) return std::nullopt;
  std::ifstream in(memory_dir_ / (version_ == 2 ? "memory.peak" : "memory.max_usage_in_bytes"));
  std::uint64_t v;
  if (in >> v) return v;
  return std::nullopt;
}

std::optional<double> StepCgroup::cpu_seconds() const {
  if (version_ != 2) return std::nullopt;
  const std::filesystem::path& dir = pids_dir_.empty() ? memory_dir_ : pids_dir_;
  if (dir.empty()) return std::nullopt;
  std::ifstream in(dir / "cpu.stat");
  std::string key;
  std::uint64_t usec;
  while (in >> key >> usec)
    if (key == "usage_usec") return static_cast<double>(usec) / 1e6;
  return std::nullopt;
}

std::optional<double> pressure_some_seconds(const std::filesystem::path& file) {
  // "some avg10=0.00 avg60=0.00 avg300=0.00 total=12345" (microseconds), then a "full" line.
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("some ", 0) != 0) continue;
    const std::size_t at = line.find(" total=");
    if (at == std::string::npos) return std::nullopt;
    try {
      return static_cast<double>(std::stoull(line.substr(at + 7))) / 1e6;
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

std::optional<double> StepCgroup::stall_seconds() const {
  if (version_ != 2) return std::nullopt;
  const std::filesystem::path& dir = pids_dir_.empty() ? memory_dir_ : pids_dir_;
  if (dir.empty()) return std::nullopt;
  // CPU pressure is the one that must be there: without it nothing says the step waited.
  std::optional<double> cpu = pressure_some_seconds(dir / "cpu.pressure");
  if (!cpu) return std::nullopt;
  double s = *cpu;
  for (const char* f : {"memory.pressure", "io.pressure"})
    if (std::optional<double> x = pressure_some_seconds(dir / f)) s += *x;
  return s;
}

}  // namespace kjudge
