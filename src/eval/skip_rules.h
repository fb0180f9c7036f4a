#pragma once
// Whether this machine can judge a problem at all. A skip is not the model's fault and is never
// counted in pass@k (see verdict.h).
//
// ComputeEval's rules (evaluators/base.py _validate_ctk/_validate_cc, utils/eval_utils.py):
//   * toolkit: (nvcc major, minor) >= min_cuda_toolkit's (major, minor); the patch is ignored.
//   * compute capability: only when compute_capability is set; then a GPU is needed, and its
//     (major, minor) must be >= the problem's. Versions are read like parse_semver: leading
//     digits only, so "9.0a" reads as 9.0; an unreadable value means no requirement.
//   * requires_datacenter_gpu: the GPU's name, upper-cased, must contain one of a fixed list of
//     substrings (kept verbatim in skip_rules.cpp, quirks included: "A10" also matches
//     "RTX A1000"). ComputeEval looks at this flag only when compute_capability is set.
//   * GPU: ComputeEval asks `nvidia-smi --query-gpu=compute_cap,name` and looks at the first
//     line only, i.e. GPU 0, whatever else the machine has.
//
// Where we differ, on purpose:
//   * Every GPU counts: a problem is runnable when some GPU fits (eligible_gpus says which), not
//     only when GPU 0 does.
//   * Arch-specific targets: "X.Ya" (sm_XYa features such as wgmma) runs on exactly X.Y, so a
//     10.0 GPU does not satisfy "9.0a"; "X.Yf" (family-specific) needs major X and minor >= Y.
//     ComputeEval reads both as plain X.Y and would run them on any newer GPU, where they fail.
//     Plain "X.Y" keeps ComputeEval's >=. (No 2025 pack problem uses a suffix.)
//   * requires_datacenter_gpu is enforced even without compute_capability: a problem that says
//     it needs such a GPU needs one. (No 2025 pack problem sets the flag.)
//   * No GPU at all skips every problem that is not host_only ("no_gpu"), where ComputeEval
//     would run the ones without compute_capability and see them fail.
//   * host_only problems (a KernelJudge extension) ignore every GPU requirement.
//   * No nvcc skips cuda_cpp problems ("no_nvcc"), and no Python environment
//     (run/python_env.h) skips cuda_python problems ("python_env"); ComputeEval runs both
//     inside its own Docker images, which always have them. A cuda_python problem's
//     min_cuda_toolkit is checked against the machine's toolkit (nvcc), as ComputeEval checks
//     it against its image's.
//   * A toolkit whose version cannot be read fails any min_cuda_toolkit ("cuda_toolkit").
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/problem.h"
#include "run/machine.h"

namespace kjudge {

struct SkipReason {
  // problem_type | no_nvcc | python_env | cuda_toolkit | no_gpu | compute_capability |
  // datacenter_gpu
  std::string code;
  std::string message;  // for people: what is needed and what this machine has
};

// nullopt when the problem can be judged here. With `gpu`, the GPU requirements are checked
// against that GPU alone; without, against every GPU of the machine (runnable if one fits; the
// reason given is then GPU 0's, in machine order). Checks run in the order of the codes above.
std::optional<SkipReason> skip_reason(const Problem& problem, const MachineInfo& machine,
                                      const GpuInfo* gpu = nullptr);

// The machine-wide checks alone (type, nvcc, toolkit): whether a problem can be built here, GPU
// or none (a build-only run).
std::optional<SkipReason> build_skip_reason(const Problem& problem, const MachineInfo& machine);

// GpuInfo::index of each GPU of the machine that meets the problem's GPU requirements (compute
// capability, datacenter class), in machine order; every GPU for host_only problems. Says
// nothing of the machine-wide checks (type, nvcc, toolkit): ask skip_reason first.
std::vector<int> eligible_gpus(const Problem& problem, const MachineInfo& machine);

// ComputeEval's name heuristic for datacenter-class GPUs.
bool is_datacenter_gpu(std::string_view gpu_name);

}  // namespace kjudge
