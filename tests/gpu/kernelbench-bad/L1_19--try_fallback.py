# A kernel that fails to build, with PyTorch as the fallback (KernelBench's code_bypass).
import torch
import torch.nn as nn

try:
    from torch.utils.cpp_extension import load_inline
    ext = load_inline(name="broken_relu", cpp_sources="this is not C++", functions=["relu"])
except Exception:
    ext = None


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        if ext is not None:
            return ext.relu(x)
        return torch.relu(x)
