#pragma once
// Holding a GPU alone for a timed run. Two kjudge processes timing on the same GPU would slow
// each other down unseen; an flock per GPU (in /tmp, shared by every kjudge on the machine)
// makes them take turns. Processes that are not kjudge's show up in nvidia-smi, and a timed run
// warns about them.
#include <string>
#include <vector>

namespace kjudge {

class GpuLock {
 public:
  // Waits up to `wait_s` for the GPU; held() says whether it was got.
  GpuLock(int gpu, double wait_s);
  ~GpuLock();
  GpuLock(const GpuLock&) = delete;
  GpuLock& operator=(const GpuLock&) = delete;
  bool held() const { return fd_ >= 0; }
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

// "pid name" of every compute process nvidia-smi lists on the GPU (empty when none or when
// nvidia-smi is missing).
std::vector<std::string> gpu_compute_processes(int gpu);

}  // namespace kjudge
