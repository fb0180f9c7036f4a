#include "run/gpu_probe.h"

#include <fstream>

#include "core/sha256.h"
#include "run/cloexec_file.h"
#include "run/process.h"

namespace kjudge {

const std::string& gpu_probe_source() {
  static const std::string src = R"(#include <cstdio>
#include <cuda_runtime.h>
__global__ void fill(int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 3 * i + 1;
}
int main() {
  const int n = 1 << 16;
  int* d = nullptr;
  if (cudaMalloc(&d, n * sizeof(int)) != cudaSuccess) { std::puts("probe: cudaMalloc failed"); return 1; }
  fill<<<(n + 255) / 256, 256>>>(d, n);
  static int h[1 << 16];
  cudaError_t e = cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) { std::printf("probe: %s\n", cudaGetErrorString(e)); return 1; }
  for (int i = 0; i < n; ++i)
    if (h[i] != 3 * i + 1) { std::printf("probe: wrong value at %d\n", i); return 1; }
  cudaFree(d);
  return 0;
}
)";
  return src;
}

void place_gpu_probe(const std::filesystem::path& exe, const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  copy_file_cloexec(exe, dir / "gpu-probe");
  fs::permissions(dir / "gpu-probe", fs::perms::owner_all | fs::perms::group_read |
                                         fs::perms::group_exec | fs::perms::others_read |
                                         fs::perms::others_exec);
}

std::filesystem::path build_gpu_probe(const std::filesystem::path& nvcc,
                                      const std::filesystem::path& dir, std::string* error) {
  namespace fs = std::filesystem;
  // Keyed by the source and the compiler, so a new toolkit gets a new probe.
  fs::path target = dir / (sha256_hex(gpu_probe_source() + nvcc.string()).substr(0, 16));
  fs::path exe = target / "gpu-probe";
  if (fs::exists(exe)) return exe;
  std::error_code ec;
  fs::create_directories(target, ec);
  {
    std::ofstream out(target / "probe.cu");
    out << gpu_probe_source();
  }
  ProcessSpec spec;
  spec.argv = {nvcc.string(), "-o", "gpu-probe.tmp", "probe.cu"};
  spec.cwd = target;
  spec.timeout_s = 300;
  ProcessResult r = run_process(spec);
  if (!r.ok()) {
    if (error) *error = "cannot build the GPU probe: " + (r.started ? r.output : r.error);
    return {};
  }
  fs::rename(target / "gpu-probe.tmp", exe, ec);
  return exe;
}

bool gpu_may_be_unwell(bool timed_out, int signal, const std::string& log) {
  if (timed_out || signal != 0) return true;
  // Errors that leave the CUDA context (or the device) unusable for the next program.
  for (const char* sticky :
       {"illegal memory access", "unspecified launch failure", "device-side assert",
        "cudaErrorIllegalAddress", "cudaErrorLaunchFailure", "cudaErrorLaunchTimeout",
        "cudaErrorECCUncorrectable", "GPU is lost", "CUDA_ERROR_ILLEGAL_ADDRESS",
        "uncorrectable ECC", "misaligned address", "illegal instruction"})
    if (log.find(sticky) != std::string::npos) return true;
  return false;
}

}  // namespace kjudge
