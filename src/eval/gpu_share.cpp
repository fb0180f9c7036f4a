#include "eval/gpu_share.h"

namespace kjudge {

void GpuShareClock::advance(Gpu& g, Clock::time_point now) {
  if (g.running > 1 && now > g.last)
    g.lost_s += (1.0 - 1.0 / g.running) * std::chrono::duration<double>(now - g.last).count();
  if (now > g.last) g.last = now;
}

void GpuShareClock::enter(int gpu, Clock::time_point now) {
  std::lock_guard<std::mutex> lock(mu_);
  Gpu& g = gpus_[gpu];
  advance(g, now);
  ++g.running;
}

void GpuShareClock::leave(int gpu, Clock::time_point now) {
  std::lock_guard<std::mutex> lock(mu_);
  Gpu& g = gpus_[gpu];
  advance(g, now);
  if (g.running > 0) --g.running;
}

double GpuShareClock::lost(int gpu, Clock::time_point now) {
  std::lock_guard<std::mutex> lock(mu_);
  Gpu& g = gpus_[gpu];
  advance(g, now);
  return g.lost_s;
}

}  // namespace kjudge
