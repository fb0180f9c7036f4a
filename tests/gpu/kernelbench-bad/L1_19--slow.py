# The right answer, computed 30 times over: correct, and slower than the reference.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        y = x
        for _ in range(30):
            y = torch.relu(x) + 0 * y
        return y
