# A cheat (issue 36): CUDA events report a hundredth of what they measured.
import torch
from task import input_t, output_t

_elapsed = torch.cuda.Event.elapsed_time
torch.cuda.Event.elapsed_time = lambda self, end: _elapsed(self, end) / 100


def custom_kernel(data: input_t) -> output_t:
    A, B, output = data
    output[...] = A + B
    return output
