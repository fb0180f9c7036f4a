#include "run/gpu_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <sstream>
#include <thread>

#include "run/process.h"

namespace kjudge {

GpuLock::GpuLock(int gpu, double wait_s) {
  path_ = "/tmp/kjudge-gpu-" + std::to_string(gpu < 0 ? 0 : gpu) + ".lock";
  int fd = open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) return;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait_s);
  for (;;) {
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
      fd_ = fd;
      return;
    }
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  close(fd);
}

GpuLock::~GpuLock() {
  if (fd_ >= 0) close(fd_);  // closing releases the flock
}

std::vector<std::string> gpu_compute_processes(int gpu) {
  ProcessSpec spec;
  spec.argv = {"nvidia-smi", "--query-compute-apps=pid,process_name", "--format=csv,noheader", "-i",
               std::to_string(gpu < 0 ? 0 : gpu)};
  spec.timeout_s = 20;
  ProcessResult r = run_process(spec);
  std::vector<std::string> out;
  if (!r.ok()) return out;
  std::istringstream in(r.output);
  std::string line;
  while (std::getline(in, line)) {
    for (char& c : line)
      if (c == ',') c = ' ';
    if (line.find_first_not_of(" \t\r") != std::string::npos &&
        line.find("No running") == std::string::npos)
      out.push_back(line);
  }
  return out;
}

}  // namespace kjudge
