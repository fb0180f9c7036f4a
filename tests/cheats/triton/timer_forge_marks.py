# CHEAT (forged samples and forged per-call marks together, issue 31 attack 2), against
# G/add_example: the samples are made a tenth at their source (the code of the event function
# the timer holds is swapped, as timer_code_swap.py does), and the windows the runner marks for
# the CUPTI profiler are moved off the work (each timed call's [site, rep, start, end] mark is
# shrunk, in place, to a nanosecond before its end), so that no kernel the profiler saw lies
# inside a timed call. Three things the candidate cannot touch say otherwise: the tamper check
# sees the swapped code (refused); the profiler's record sees timed calls with no device work
# where the reference's had some, and the add kernel launched between each call's key and its
# done outside every window (cupti_no_work, cupti_hidden_work: timing_refused).
import gc

import torch
import triton
import triton.language as tl


def _swap():
    try:
        class _Tenth(torch._C._CudaEventBase):
            def elapsed_time(self, end_event):
                return 0.1 * super().elapsed_time(end_event)

        torch.cuda.Event.elapsed_time.__code__ = _Tenth.elapsed_time.__code__
    except Exception:  # noqa: BLE001
        pass


_swap()
_marks = []


def _shrink_marks():
    if not _marks:
        for o in gc.get_objects():
            if type(o).__name__ == "CallMarks":
                _marks.append(o)
    for m in _marks:
        for call in m.calls:
            if call[1] >= 0 and call[3] - call[2] > 1:
                call[2] = call[3] - 1


@triton.jit
def add_kernel(in_ptr0, in_ptr1, out_ptr, n_elements, BLOCK_SIZE: "tl.constexpr"):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(in_ptr0 + offsets, mask=mask)
    y = tl.load(in_ptr1 + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


def add_wrapper(x, y):
    _shrink_marks()
    out = torch.zeros_like(x)
    n = x.numel()
    add_kernel[((n + 3) // 4,)](x, y, out, n, 4)
    return out
