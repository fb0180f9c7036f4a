# CHEAT (outputs computed ahead, handed back through a cheap copy kernel, issue 31 attack 3),
# against G/softmax_triton1: as precompute_softmax.py, but each timed call hands its cached
# output back through a device-to-device copy into a fresh tensor, so that the timed call is
# not empty (the profiler's "no device work" rule sees a copy) and the output is a new tensor.
# The inputs made ahead are still not the timed calls' (their keys come from the judge in their
# turn): timed_mismatch.
import gc
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_cols,
                   BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    row = tl.load(input_ptr + row_idx * input_row_stride + col_offsets,
                  mask=col_offsets < n_cols, other=-float("inf"))
    row_minus_max = row - tl.max(row, axis=0)
    numerator = tl.exp(row_minus_max)
    out = numerator / tl.sum(numerator, axis=0)
    tl.store(output_ptr + row_idx * output_row_stride + col_offsets, out, mask=col_offsets < n_cols)


def _softmax(x):
    n_rows, n_cols = x.shape
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    num_warps = 16 if BLOCK_SIZE >= 4096 else 8 if BLOCK_SIZE >= 2048 else 4
    y = torch.empty_like(x)
    softmax_kernel[(n_rows,)](y, x, x.stride(0), y.stride(0), n_cols, num_warps=num_warps,
                              BLOCK_SIZE=BLOCK_SIZE)
    return y


_cache = {}


def _measure_frame():
    f = sys._getframe(2)
    for _ in range(4):
        if f is None:
            return None
        if f.f_code.co_name == "measure":
            return f
        f = f.f_back
    return None


def _timer():
    for o in gc.get_objects():
        if type(o).__name__ == "CudaTimer":
            return o
    return None


def softmax(x):
    f = _measure_frame()
    if f is None:
        return _softmax(x)
    loc = f.f_locals
    index = loc.get("index")
    if "started" in loc:  # a timed call: its output was made ahead
        got = _cache.get((index, len(loc.get("samples", ()))))
        return torch.empty_like(got).copy_(got) if got is not None else _softmax(x)
    if "plan" in loc or (index, 0) in _cache:  # a warm-up or a probe: honest
        return _softmax(x)
    timer = _timer()  # the test's own call: make every timed call's output now
    try:
        check = timer.check
        plan = check.plan[index] if check.plan is not None and index < len(check.plan) else {}
        perturb = plan.get("perturb", ["args[0]"])
        for rep in range(min(timer.reps, plan.get("reps") or timer.reps)):
            a, k, _ = check.inputs((x,), {}, perturb, index, rep)
            _cache[(index, rep)] = _softmax(*a)
    except Exception:  # noqa: BLE001 - the runner is not what it was: stay honest
        pass
    return _softmax(x)
