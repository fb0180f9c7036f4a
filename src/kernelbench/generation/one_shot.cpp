// The one-shot example pair. Declared, and explained, in kernelbench/generation/one_shot.h.
#include "kernelbench/generation/one_shot.h"

namespace kjudge::kernelbench {
namespace {

constexpr const char* kModel = R"py(import torch
import torch.nn as nn


class Model(nn.Module):
    """Adds two tensors elementwise."""

    def __init__(self) -> None:
        super().__init__()

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return x + y


def get_inputs():
    # Two random tensors of one shape, on the GPU.
    return [torch.randn(4, 256, device="cuda"), torch.randn(4, 256, device="cuda")]


def get_init_inputs():
    # Model's constructor takes no arguments.
    return []
)py";

constexpr const char* kModelNew = R"py(import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

add_cuda_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void add_kernel(const float* x, const float* y, float* out, int64_t n) {
    const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    if (i < n) {
        out[i] = x[i] + y[i];
    }
}

torch::Tensor add_cuda(torch::Tensor x, torch::Tensor y) {
    auto out = torch::empty_like(x);
    const int64_t n = x.numel();
    const int threads = 256;
    const int blocks = static_cast<int>((n + threads - 1) / threads);
    add_kernel<<<blocks, threads>>>(x.data_ptr<float>(), y.data_ptr<float>(),
                                    out.data_ptr<float>(), n);
    return out;
}
"""

add_cpp_source = "torch::Tensor add_cuda(torch::Tensor x, torch::Tensor y);"

# Compiled once, when the module is imported.
add_extension = load_inline(
    name="add_extension",
    cpp_sources=add_cpp_source,
    cuda_sources=add_cuda_source,
    functions=["add_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    """Model, with the addition done by a custom CUDA kernel."""

    def __init__(self) -> None:
        super().__init__()
        self.extension = add_extension

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return self.extension.add_cuda(x.contiguous(), y.contiguous())
)py";

}  // namespace

const OneShotPair& elementwise_add_example() {
  static const OneShotPair pair{kModel, kModelNew};
  return pair;
}

}  // namespace kjudge::kernelbench
