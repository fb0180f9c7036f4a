# The right answer with one NaN in it: NaN never passes.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        y = torch.relu(x)
        y.view(-1)[7] = float("nan")
        return y
