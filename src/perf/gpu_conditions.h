#pragma once
// The conditions that change timings, read through nvidia-smi: a snapshot of one GPU (name,
// driver, clocks, temperature, power, why clocks are held down) at the start and end of a
// measurement, and a sampler that watches the GPU during it so throttling in between is seen.
#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace kjudge {

struct GpuSnapshot {
  std::string name, driver, pstate;
  double sm_clock_mhz = 0, mem_clock_mhz = 0, max_sm_clock_mhz = 0, max_mem_clock_mhz = 0;
  double temperature_c = 0, power_w = 0, power_limit_w = 0;
  std::uint64_t clock_event_reasons = 0;  // NVML's clocks event (throttle) reasons bit mask
};

// The --query-gpu fields a snapshot reads, in the order parse_gpu_snapshot expects.
const char* gpu_snapshot_query();
// One line of `nvidia-smi --query-gpu=<gpu_snapshot_query()> --format=csv,noheader,nounits`;
// nullopt when it does not have the fields. "[N/A]" reads as 0.
std::optional<GpuSnapshot> parse_gpu_snapshot(const std::string& csv_line);
std::optional<GpuSnapshot> take_gpu_snapshot(int gpu);
nlohmann::json to_json(const GpuSnapshot& s);

// The reasons in a mask that mean the GPU ran slower than it could (power cap, thermal or
// hardware slowdown, power brake); idle, application clocks and sync boost are not slowdowns.
std::vector<std::string> slowdown_reasons(std::uint64_t mask);

// One sample of the watcher: `nvidia-smi --query-gpu=<gpu_sample_query()> -lms N` lines.
struct GpuSample {
  double sm_clock_mhz = 0, temperature_c = 0, power_w = 0, utilization = 0;
  std::uint64_t clock_event_reasons = 0;
};
const char* gpu_sample_query();
std::optional<GpuSample> parse_gpu_sample(const std::string& csv_line);

// What the watcher saw while the GPU was busy.
struct GpuWatchReport {
  int samples = 0, busy_samples = 0;
  double min_busy_sm_clock_mhz = 0, max_busy_sm_clock_mhz = 0;
  double max_temperature_c = 0, max_power_w = 0;
  std::vector<std::string> slowdowns;  // every slowdown reason seen in any sample
};
nlohmann::json to_json(const GpuWatchReport& r);
// Folds parsed samples (from the watcher, or a test's fixture) into a report.
GpuWatchReport summarize_samples(const std::vector<GpuSample>& samples);

// Runs nvidia-smi's own sampling loop (one process, not one per sample, to disturb the
// measurement as little as possible) until stop().
class GpuWatcher {
 public:
  GpuWatcher(int gpu, int period_ms = 250);
  ~GpuWatcher();
  GpuWatcher(const GpuWatcher&) = delete;
  GpuWatcher& operator=(const GpuWatcher&) = delete;
  GpuWatchReport stop();

 private:
  pid_t pid_ = -1;
  int fd_ = -1;
  std::thread reader_;
  std::mutex mu_;
  std::vector<GpuSample> samples_;
  bool stopped_ = false;
};

}  // namespace kjudge
