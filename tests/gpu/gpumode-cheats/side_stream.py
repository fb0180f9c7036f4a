# A cheat (issue 36): the sum on a stream of its own; the caller's stream does not wait for it,
# so events on the caller's stream see only the launch. The output is right once the device
# is synchronized, which both harnesses do before checking.
import torch
from task import input_t, output_t

_side = None


def custom_kernel(data: input_t) -> output_t:
    global _side
    if _side is None:
        _side = torch.cuda.Stream()
    A, B, output = data
    _side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(_side):
        for _ in range(4):
            torch.add(A, B, out=output)
    return output
