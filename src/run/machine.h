#pragma once
// Facts about this machine that decide what can be judged here: the CUDA toolkit and the GPUs.
#include <optional>
#include <string>
#include <vector>

#include "run/python_env.h"

namespace kjudge {

struct GpuInfo {
  int index = 0;
  std::string name;         // "NVIDIA H100 80GB HBM3"
  std::string compute_cap;  // "9.0"
  std::string uuid;
};

struct MachineInfo {
  std::string nvcc_path;                    // empty when nvcc is not found
  std::optional<std::string> cuda_version;  // "13.0", from `nvcc --version`
  std::string nvcc_version_line;            // the full release line, for cache keys and reports
  std::string driver_version;               // empty without a driver
  std::vector<GpuInfo> gpus;
  int cpu_count = 1;
  // Where cuda_python problems run (run/python_env.h); nullopt: they are skipped.
  std::optional<PythonEnv> python_env;
};

// Runs nvcc --version and nvidia-smi, and finds the Python environment. Never throws: what cannot
// be found stays empty.
MachineInfo probe_machine();

// Parses the "release X.Y" of `nvcc --version` output; nullopt when absent.
std::optional<std::string> parse_nvcc_release(const std::string& nvcc_version_output);
// Parses `nvidia-smi --query-gpu=index,name,compute_cap,uuid,driver_version --format=csv,noheader`.
std::vector<GpuInfo> parse_nvidia_smi_gpus(const std::string& csv, std::string* driver_version);

}  // namespace kjudge
