# The work done by a thread of its own.
import threading

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        box = {}
        t = threading.Thread(target=lambda: box.setdefault("y", torch.relu(x)), name="worker")
        t.start()
        t.join()
        return box["y"]
