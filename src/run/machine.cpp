#include "run/machine.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <sstream>
#include <thread>

#include "core/text.h"
#include "run/close_fds.h"

namespace kjudge {
namespace {

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// "9.0", "10.0", "12.1": what nvidia-smi prints for a known compute capability.
bool is_major_minor(std::string_view s) {
  std::size_t dot = s.find('.');
  return dot != std::string_view::npos && all_digits(s.substr(0, dot)) &&
         all_digits(s.substr(dot + 1));
}

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

std::string find_nvcc() {
  if (const char* path = std::getenv("PATH")) {
    std::string_view dirs(path);
    while (true) {
      std::size_t colon = dirs.find(':');
      std::string dir(dirs.substr(0, colon));
      if (!dir.empty()) {
        std::string candidate = dir + "/nvcc";
        if (is_executable_file(candidate)) return candidate;
      }
      if (colon == std::string_view::npos) break;
      dirs.remove_prefix(colon + 1);
    }
  }
  const std::string fallback = "/usr/local/cuda/bin/nvcc";
  return is_executable_file(fallback) ? fallback : std::string();
}

// Runs argv (argv[0] looked up in PATH) and returns its stdout when it exits 0 within the time
// limit. Its stderr goes to /dev/null, so a missing tool or a driver without GPUs stays quiet.
// A hung nvidia-smi (a wedged driver does that) is killed with its process group.
std::optional<std::string> capture_stdout(const std::vector<std::string>& argv, double timeout_s) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return std::nullopt;
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return std::nullopt;
  }
  if (pid == 0) {
    // Only async-signal-safe calls between fork and exec: the judge may have threads.
    setpgid(0, 0);
    dup2(fds[1], STDOUT_FILENO);  // first: with stdin closed, the pipe may have taken fd 0
    int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (devnull >= 0) {
      dup2(devnull, STDIN_FILENO);
      dup2(devnull, STDERR_FILENO);
    }
    close_fds_except(nullptr, 0);  // a tool of the machine's needs none of the judge's
    execvp(args[0], args.data());
    _exit(127);
  }
  close(fds[1]);
  setpgid(pid, pid);  // also from here, so the group exists before any kill below

  std::string out;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  bool timed_out = false;
  char buf[4096];
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd pfd{fds[0], POLLIN, 0};
    int r = poll(&pfd, 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      timed_out = true;  // poll itself failing leaves nothing better than giving up
      break;
    }
    ssize_t n = read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  close(fds[0]);
  // The child may outlive its stdout; it still gets only until the deadline.
  int status = 0;
  while (!timed_out) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid || (w < 0 && errno != EINTR)) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      timed_out = true;
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  if (timed_out) {
    kill(-pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return std::nullopt;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  return out;
}

}  // namespace

std::optional<std::string> parse_nvcc_release(const std::string& nvcc_version_output) {
  // "Cuda compilation tools, release 12.8, V12.8.93"
  std::size_t pos = nvcc_version_output.find("release ");
  while (pos != std::string::npos) {
    std::size_t i = pos + 8;
    std::size_t j = i;
    while (j < nvcc_version_output.size() &&
           (std::isdigit(static_cast<unsigned char>(nvcc_version_output[j])) ||
            nvcc_version_output[j] == '.'))
      ++j;
    std::string version = nvcc_version_output.substr(i, j - i);
    while (!version.empty() && version.back() == '.') version.pop_back();
    if (is_major_minor(version)) return version;
    pos = nvcc_version_output.find("release ", pos + 1);
  }
  return std::nullopt;
}

std::vector<GpuInfo> parse_nvidia_smi_gpus(const std::string& csv, std::string* driver_version) {
  std::vector<GpuInfo> gpus;
  if (driver_version) driver_version->clear();
  std::istringstream lines(csv);
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> fields;
    std::size_t start = 0;
    while (true) {
      std::size_t comma = line.find(',', start);
      fields.push_back(trim(std::string_view(line).substr(start, comma - start)));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    // Anything else nvidia-smi prints ("No devices were found", a failure notice) has no
    // numeric index in front and five fields.
    if (fields.size() < 5 || !all_digits(fields[0])) continue;
    const std::size_t n = fields.size();
    GpuInfo gpu;
    gpu.index = std::atoi(fields[0].c_str());
    // Names have no commas today; should one appear, the fields on either side still hold.
    for (std::size_t i = 1; i + 3 < n; ++i) gpu.name += (i > 1 ? "," : "") + fields[i];
    // "[N/A]" on drivers too old to report it: unknown, which the skip rules read as 0.0.
    gpu.compute_cap = is_major_minor(fields[n - 3]) ? fields[n - 3] : "";
    gpu.uuid = fields[n - 2];
    // One driver serves every GPU; the first line says which.
    if (driver_version && gpus.empty()) *driver_version = fields[n - 1];
    gpus.push_back(std::move(gpu));
  }
  return gpus;
}

MachineInfo probe_machine() {
  MachineInfo info;
  unsigned cpus = std::thread::hardware_concurrency();
  info.cpu_count = cpus == 0 ? 1 : static_cast<int>(cpus);

  info.nvcc_path = find_nvcc();
  if (!info.nvcc_path.empty()) {
    if (std::optional<std::string> out = capture_stdout({info.nvcc_path, "--version"}, 30.0)) {
      info.cuda_version = parse_nvcc_release(*out);
      std::istringstream lines(*out);
      for (std::string line; std::getline(lines, line);)
        if (line.find("release ") != std::string::npos) info.nvcc_version_line = trim(line);
    }
  }

  if (std::optional<std::string> out =
          capture_stdout({"nvidia-smi", "--query-gpu=index,name,compute_cap,uuid,driver_version",
                          "--format=csv,noheader"},
                         30.0)) {
    info.gpus = parse_nvidia_smi_gpus(*out, &info.driver_version);
  }
  info.python_env = find_python_env();
  return info;
}

}  // namespace kjudge
