# CHEAT (timing, Python), against G/add_example: add_wrapper hands the work to a thread of its own.
# The first call of each shape waits for it, so the test's own calls (one per shape) come back
# complete; a repeated shape (the timer's calls) returns at once. The thread waits a moment, so
# it launches the kernel after the timer's end event and after its device-wide synchronize: no
# event of the timed call sees the work, and the output may be ready by the time the judge reads
# it back. One process cannot stop a
# thread, but the runner sees it: a thread the operator code started, alive beside the timed
# calls, and the reference's never had one (RuntimeWatch): flagged `runtime_hook`. Where the
# thread is late for the read-back, the timed check fails instead (timed_mismatch). With the
# CUPTI profiler (issue 31) the timed calls hold no device work where the reference's did, and
# the thread's kernels are launched while the site is being timed: both withhold the speedup
# (timing_refused) where the outputs did not already fail.
import queue
import threading
import time

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


_work = queue.Queue()


def _launcher():
    while True:
        x, y, out, done = _work.get()
        time.sleep(0.0005)  # past the end event and the synchronize after it
        n = x.numel()
        add_kernel[((n + 3) // 4,)](x, y, out, n, 4)
        torch.cuda.synchronize()
        done.set()


threading.Thread(target=_launcher, daemon=True).start()


_shapes = set()


def add_wrapper(x, y):
    out = torch.empty_like(x)
    done = threading.Event()
    _work.put((x, y, out, done))
    if x.shape not in _shapes:  # a shape seen for the first time: the test's own call
        _shapes.add(x.shape)
        done.wait()
    return out
