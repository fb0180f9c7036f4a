# CHEAT (the timer's clock changed without rebinding anything, issue 31 attack 2), against
# G/add_example: the runner takes torch.cuda.Event.elapsed_time before any operator code runs,
# so patching the attribute later does not reach it; this replaces the *code* of that very
# function object (same object, new __code__, with the same free variable, super()'s
# __class__), so the function the timer holds now returns a tenth of the time. The runner's
# tamper check holds what each function it holds runs (its code, defaults and closure), and
# names the timer's _elapsed as replaced: the run is refused. Where the swap is refused by
# Python (another torch), the operator stays honest: no gain.
import torch
import triton
import triton.language as tl


def _swap():
    try:
        class _Tenth(torch._C._CudaEventBase):
            def elapsed_time(self, end_event):
                return 0.1 * super().elapsed_time(end_event)

        torch.cuda.Event.elapsed_time.__code__ = _Tenth.elapsed_time.__code__
    except Exception:  # noqa: BLE001 - another torch: nothing to swap
        pass


_swap()


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
