# CHEAT (reaching into the harness, Python), against G/add_example: the operator is honest, but
# as its module runs it reaches the judge's runner, whose modules share the process (its timer
# in sys.modules' kjudge_triton.timing since issue 33; __main__ when the runner was one file),
# and wraps the constructor of the runner's timer so that every timer it makes reads a tenth of
# the real time between its events (pygpubench-style: patch the harness, not the kernel). The
# static pass flags the reach (`code_patch`: sys.modules). Since issue 31 the runner's tamper
# check (Tamper, taken before any operator code runs) names its own timer's constructor
# replaced, and the judge refuses the run (verdict refused); with the CUPTI profiler each call's
# forged time would also stand below the GPU time busy in it (`cupti_below_gpu`).
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(
    in_ptr0,
    in_ptr1,
    out_ptr,
    n_elements,
    BLOCK_SIZE: "tl.constexpr",
):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(in_ptr0 + offsets, mask=mask)
    y = tl.load(in_ptr1 + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def _tenth(elapsed):
    return lambda start, end: 0.1 * elapsed(start, end)


def _patch_the_runner():
    timer = None
    for name in ("kjudge_triton.timing", "__main__"):
        timer = timer or getattr(sys.modules.get(name), "CudaTimer", None)
    if timer is None:
        return
    init = timer.__init__

    def patched(self, *args, **kwargs):
        init(self, *args, **kwargs)
        if hasattr(self, "_elapsed"):
            self._elapsed = _tenth(self._elapsed)

    timer.__init__ = patched


_patch_the_runner()


def add_wrapper(x, y):
    out = torch.empty_like(x)
    n = out.numel()
    add_kernel[((n + 3) // 4,)](x, y, out, n, 4)
    return out
