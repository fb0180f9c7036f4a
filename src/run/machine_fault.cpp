#include "run/machine_fault.h"

namespace kjudge {

namespace {

constexpr const char* kMachineFaultMarkers[] = {
    "no CUDA-capable device is detected",
    "CUDA driver version is insufficient for CUDA runtime version",
    "all CUDA-capable devices are busy or unavailable",
    "cudaErrorDevicesUnavailable",
    "cudaErrorNoDevice",
    "cudaErrorInsufficientDriver",
    "CUDA_ERROR_NO_DEVICE",
    "system has unsupported display driver / cuda driver combination",
};

}  // namespace

std::string machine_fault(const std::string& log) {
  for (const char* m : kMachineFaultMarkers)
    if (log.find(m) != std::string::npos) return m;
  return {};
}

}  // namespace kjudge
