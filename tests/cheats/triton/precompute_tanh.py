# CHEAT (every timed call's output computed ahead, issue 31 attack 3, channel T), against
# T/tanh: a Triton tanh that, during the test's own call at each site (untimed), makes every
# timed call's inputs with the runner's own input maker (CallCheck.inputs, reached through gc)
# and computes their outputs; each timed call hands back its cached output, launching nothing
# (2.74x on the H100 with no flag, when the job's secret sat in the process). The timed calls'
# keys now come from the judge, each in its turn (CallStream): the outputs made ahead are for
# other inputs. Verdict timed_mismatch (with the profiler also cupti_no_work).
import gc
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def tanh_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = 2.0 / (1.0 + tl.exp(-2.0 * x)) - 1.0
    tl.store(out_ptr + offs, y, mask=mask)


def _tanh(input_tensor, out_tensor=None):
    x = input_tensor.contiguous()
    out = out_tensor if out_tensor is not None else torch.empty_like(x)
    n = x.numel()
    if n:
        tanh_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out


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


def tanh(input_tensor, out_tensor=None):
    f = _measure_frame()
    if f is None or out_tensor is not None:
        return _tanh(input_tensor, out_tensor)
    loc = f.f_locals
    index = loc.get("index")
    if "started" in loc:
        got = _cache.get((index, len(loc.get("samples", ()))))
        return got if got is not None else _tanh(input_tensor)
    if "plan" in loc or (index, 0) in _cache:
        return _tanh(input_tensor)
    try:
        timer = _timer()
        check = timer.check
        plan = check.plan[index] if check.plan is not None and index < len(check.plan) else {}
        for rep in range(min(timer.reps, plan.get("reps") or timer.reps)):
            a, _, _ = check.inputs((input_tensor,), {}, plan.get("perturb", ["args[0]"]),
                                   index, rep)
            _cache[(index, rep)] = _tanh(a[0])
    except Exception:  # noqa: BLE001
        pass
    return _tanh(input_tensor)
