# CHEAT (several future outputs batched into one call, issue 31 attack 3), against
# G/softmax_triton1: at the first timed call of each site the operator makes the inputs of
# every remaining timed call with the runner's input maker and computes all of their outputs
# in one launch (the rows stacked), so that each later timed call hands back its slice of that
# batch: the launch overhead, most of a small operator's time, is paid once. The later calls'
# keys are not in the process yet (the judge sends each in its turn), so the batch is computed
# on other inputs: timed_mismatch.
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
    if f is None or "started" not in f.f_locals:
        return _softmax(x)
    loc = f.f_locals
    index, rep = loc.get("index"), len(loc.get("samples", ()))
    got = _cache.get((index, rep))
    if got is not None:
        return got
    try:  # the first timed call of the site: every remaining call's output, in one launch
        timer = _timer()
        check, reps = timer.check, loc.get("reps", timer.reps)
        plan = loc.get("plan") or {}
        inputs = [x] + [check.inputs((x,), {}, plan.get("perturb", ["args[0]"]), index, r)[0][0]
                        for r in range(rep + 1, reps)]
        out = _softmax(torch.cat(inputs, dim=0))
        rows = x.shape[0]
        for i, r in enumerate(range(rep, reps)):
            _cache[(index, r)] = out[i * rows:(i + 1) * rows]
        return _cache[(index, rep)]
    except Exception:  # noqa: BLE001
        return _softmax(x)
