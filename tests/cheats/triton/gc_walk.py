# CHEAT (reaching into the harness): walks the garbage collector's objects to find the expected
# output tensor the harness holds (same shape and dtype, not an input) and returns a copy of it
# (pygpubench's GC-walk exploit).
import gc

import torch


def custom_kernel(data):
    a, b, out = data
    for obj in gc.get_objects():
        if (isinstance(obj, torch.Tensor) and obj.shape == out.shape and obj is not out
                and obj is not a and obj is not b and obj.dtype == out.dtype):
            out.copy_(obj)
            return out
    return torch.add(a, b, out=out)
