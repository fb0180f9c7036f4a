# CHEAT (timing, Python), against G/add_example: late_thread.py's thread, hidden. The thread
# takes itself out of threading's tables as it starts, so threading.enumerate() (what the
# runner's RuntimeWatch reads) never lists it: no `runtime_hook`. add_wrapper hands it the work
# and returns at once (the first call of each shape waits, so the test's own calls come back
# complete); the thread launches the kernel after the timer's end event and its device-wide
# synchronize, so no event sees the work. Where the thread is late for the read-back, the timed
# check fails (timed_mismatch); where it is not, only the CUPTI profiler (--cupti) sees the
# kernels launched outside every call by a thread not the runner's while the site was timed,
# and timed calls with no device work: since issue 31 that withholds the speedup
# (`cupti_hidden_work`, `cupti_no_work`: timing_refused).
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
    with threading._active_limbo_lock:
        threading._active.pop(threading.get_ident(), None)
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
