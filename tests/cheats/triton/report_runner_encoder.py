# CHEAT (the report's encoder, reached in the runner, issue 31 attack 1), against
# G/add_example: json's own functions no longer reach the report (report_dumps.py), so this one
# reaches the runner itself, whose modules share the process (kjudge_triton.channel in
# sys.modules since issue 33; __main__ when the runner was one file), and rebinds its report
# writer (channel_bytes) and its bound encoder (_dumps) to versions that halve every sample.
# The runner's tamper check (Tamper: its module's names, its classes' attributes, what each
# function runs) sees both rebound, and the judge refuses the run; had it not, the samples
# committed call by call on the judge's channel would have disagreed with the report.
import sys

import torch
import triton
import triton.language as tl


def _halve(value):
    if isinstance(value, dict):
        return {k: ([x * 0.5 for x in v] if k == "samples_ms" and isinstance(v, list)
                    else _halve(v)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_halve(v) for v in value)
    return value


def _patch():
    runner = sys.modules.get("kjudge_triton.channel")
    if runner is None:
        runner = sys.modules.get("__main__")
    if runner is None or not hasattr(runner, "channel_bytes"):
        return
    write, dumps = runner.channel_bytes, getattr(runner, "_dumps", None)
    runner.channel_bytes = lambda record, data: write(_halve(record), data)
    if dumps is not None:
        runner._dumps = lambda value: dumps(_halve(value))


_patch()


@triton.jit
def add_kernel(in_ptr0, in_ptr1, out_ptr, n_elements, BLOCK_SIZE: "tl.constexpr"):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(in_ptr0 + offsets, mask=mask)
    y = tl.load(in_ptr1 + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def add_wrapper(x, y):
    out = torch.zeros_like(x)
    n = x.numel()
    add_kernel[((n + 3) // 4,)](x, y, out, n, 4)
    return out
