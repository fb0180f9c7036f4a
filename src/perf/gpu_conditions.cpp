#include "perf/gpu_conditions.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <sstream>

#include "run/close_fds.h"
#include "run/process.h"

namespace kjudge {

namespace {

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, ',')) {
    std::size_t a = field.find_first_not_of(" \t\r\n");
    std::size_t b = field.find_last_not_of(" \t\r\n");
    out.push_back(a == std::string::npos ? "" : field.substr(a, b - a + 1));
  }
  return out;
}

double number(const std::string& s) {
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  return end == s.c_str() ? 0 : v;  // "[N/A]", "N/A", "" → 0
}

std::uint64_t mask(const std::string& s) {
  return s.rfind("0x", 0) == 0 ? std::strtoull(s.c_str() + 2, nullptr, 16) : 0;
}

}  // namespace

const char* gpu_snapshot_query() {
  return "name,driver_version,pstate,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,"
         "temperature.gpu,power.draw,power.limit,clocks_event_reasons.active";
}

std::optional<GpuSnapshot> parse_gpu_snapshot(const std::string& csv_line) {
  std::vector<std::string> f = split_csv(csv_line);
  if (f.size() != 11 || f[0].empty()) return std::nullopt;
  GpuSnapshot s;
  s.name = f[0];
  s.driver = f[1];
  s.pstate = f[2];
  s.sm_clock_mhz = number(f[3]);
  s.mem_clock_mhz = number(f[4]);
  s.max_sm_clock_mhz = number(f[5]);
  s.max_mem_clock_mhz = number(f[6]);
  s.temperature_c = number(f[7]);
  s.power_w = number(f[8]);
  s.power_limit_w = number(f[9]);
  s.clock_event_reasons = mask(f[10]);
  return s;
}

std::optional<GpuSnapshot> take_gpu_snapshot(int gpu) {
  ProcessResult r = run_shell(std::string("nvidia-smi --query-gpu=") + gpu_snapshot_query() +
                                  " --format=csv,noheader,nounits -i " + std::to_string(gpu),
                              "/", 30);
  if (!r.ok()) return std::nullopt;
  return parse_gpu_snapshot(r.output.substr(0, r.output.find('\n')));
}

nlohmann::json to_json(const GpuSnapshot& s) {
  return {{"name", s.name},
          {"driver", s.driver},
          {"pstate", s.pstate},
          {"sm_clock_mhz", s.sm_clock_mhz},
          {"mem_clock_mhz", s.mem_clock_mhz},
          {"max_sm_clock_mhz", s.max_sm_clock_mhz},
          {"max_mem_clock_mhz", s.max_mem_clock_mhz},
          {"temperature_c", s.temperature_c},
          {"power_w", s.power_w},
          {"power_limit_w", s.power_limit_w},
          {"slowdowns", slowdown_reasons(s.clock_event_reasons)}};
}

std::vector<std::string> slowdown_reasons(std::uint64_t m) {
  // NVML's nvmlClocksEventReason* bits.
  static const std::pair<std::uint64_t, const char*> kBits[] = {{0x4, "sw_power_cap"},
                                                                {0x8, "hw_slowdown"},
                                                                {0x20, "sw_thermal_slowdown"},
                                                                {0x40, "hw_thermal_slowdown"},
                                                                {0x80, "hw_power_brake_slowdown"}};
  std::vector<std::string> out;
  for (const auto& [bit, name] : kBits)
    if (m & bit) out.push_back(name);
  return out;
}

const char* gpu_sample_query() {
  return "clocks.sm,temperature.gpu,power.draw,utilization.gpu,clocks_event_reasons.active";
}

std::optional<GpuSample> parse_gpu_sample(const std::string& csv_line) {
  std::vector<std::string> f = split_csv(csv_line);
  if (f.size() != 5 || f[0].empty()) return std::nullopt;
  GpuSample s;
  s.sm_clock_mhz = number(f[0]);
  s.temperature_c = number(f[1]);
  s.power_w = number(f[2]);
  s.utilization = number(f[3]);
  s.clock_event_reasons = mask(f[4]);
  return s;
}

GpuWatchReport summarize_samples(const std::vector<GpuSample>& samples) {
  GpuWatchReport r;
  std::set<std::string> slow;
  for (const auto& s : samples) {
    ++r.samples;
    r.max_temperature_c = std::max(r.max_temperature_c, s.temperature_c);
    r.max_power_w = std::max(r.max_power_w, s.power_w);
    // Clocks of an idle GPU drop by design; only busy samples say how fast work ran.
    if (s.utilization > 0) {
      r.min_busy_sm_clock_mhz =
          r.busy_samples == 0 ? s.sm_clock_mhz : std::min(r.min_busy_sm_clock_mhz, s.sm_clock_mhz);
      r.max_busy_sm_clock_mhz = std::max(r.max_busy_sm_clock_mhz, s.sm_clock_mhz);
      ++r.busy_samples;
    }
    for (const auto& reason : slowdown_reasons(s.clock_event_reasons)) slow.insert(reason);
  }
  r.slowdowns.assign(slow.begin(), slow.end());
  return r;
}

nlohmann::json to_json(const GpuWatchReport& r) {
  return {{"samples", r.samples},
          {"busy_samples", r.busy_samples},
          {"min_busy_sm_clock_mhz", r.min_busy_sm_clock_mhz},
          {"max_busy_sm_clock_mhz", r.max_busy_sm_clock_mhz},
          {"max_temperature_c", r.max_temperature_c},
          {"max_power_w", r.max_power_w},
          {"slowdowns", r.slowdowns}};
}

GpuWatcher::GpuWatcher(int gpu, int period_ms) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return;
  const std::string query = std::string("--query-gpu=") + gpu_sample_query();
  const std::string id = std::to_string(gpu), lms = std::to_string(period_ms);
  pid_ = fork();
  if (pid_ == 0) {
    dup2(fds[1], STDOUT_FILENO);
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) dup2(devnull, STDERR_FILENO);
    close_fds_except(nullptr, 0);  // nvidia-smi needs none of the judge's descriptors
    execlp("nvidia-smi", "nvidia-smi", query.c_str(), "--format=csv,noheader,nounits", "-i",
           id.c_str(), "-lms", lms.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  if (pid_ < 0) {
    close(fds[0]);
    return;
  }
  fd_ = fds[0];
  reader_ = std::thread([this] {
    std::string pending;
    char buf[4096];
    for (;;) {
      ssize_t n = read(fd_, buf, sizeof buf);
      if (n <= 0) break;
      pending.append(buf, static_cast<std::size_t>(n));
      std::size_t nl;
      while ((nl = pending.find('\n')) != std::string::npos) {
        if (auto s = parse_gpu_sample(pending.substr(0, nl))) {
          std::lock_guard<std::mutex> lock(mu_);
          samples_.push_back(*s);
        }
        pending.erase(0, nl + 1);
      }
    }
  });
}

GpuWatchReport GpuWatcher::stop() {
  if (!stopped_) {
    stopped_ = true;
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
    }
    if (reader_.joinable()) reader_.join();
    if (fd_ >= 0) close(fd_);
  }
  std::lock_guard<std::mutex> lock(mu_);
  return summarize_samples(samples_);
}

GpuWatcher::~GpuWatcher() { stop(); }

}  // namespace kjudge
