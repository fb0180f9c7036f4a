# CHEAT (outputs computed ahead with keys pulled from the judge early, issue 31 attack 3),
# against G/softmax_triton1: the keys of the timed calls are no longer in the process, so during
# the test's own call at each site (untimed) this asks the judge for them itself, through the
# runner's own per-call channel (CallStream, found through gc): for each timed call it asks for
# the key, makes the call's inputs with it and computes the output, says the call is done and
# commits a digest, and asks for the next. When the runner's timing loop then asks for its
# first key, the judge has served it already: a message out of turn, and the run is refused.
# (Had the runner's own requests been answered from a cache instead, the timed calls would lie
# outside the time between their keys and dones on the judge's clock: cupti_interval.)
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
        return got if got is not None else _softmax(x)
    if "plan" in loc or (index, 0) in _cache:  # a warm-up or a probe: honest
        return _softmax(x)
    timer = _timer()  # the test's own call: make every timed call's output now
    try:
        check = timer.check
        plan = check.plan[index] if check.plan is not None and index < len(check.plan) else {}
        perturb = plan.get("perturb", ["args[0]"])
        stream = timer.stream
        for rep in range(min(timer.reps, plan.get("reps") or timer.reps)):
            key = stream.key(index, rep)
            a, k, _ = check.inputs((x,), {}, perturb, index, rep, key)
            _cache[(index, rep)] = _softmax(*a)
            stream.done(index, rep, 0.001, 0.001)
            stream.kept(index, rep, "0" * 64)
    except Exception:  # noqa: BLE001 - the runner is not what it was: stay honest
        pass
    return _softmax(x)
