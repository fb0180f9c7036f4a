# The reference's own operator, called: correct, no speedup, and warned about (reference_op,
# reference_kernels with CUPTI, no_kernel).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)
