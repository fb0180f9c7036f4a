# CHEAT (caching by content), against G/add_example: add_wrapper keeps copies of the inputs it
# has seen beside its output, and when inputs of the same content come back it returns that
# output without computing. Its answers are always right. The timer used to give its timed
# calls copies of the test's inputs, so every timed call was a hit. Now every timed call gets
# new content (seeded by a secret of the judge's): never a hit, so no gain (the comparisons
# only cost it time), and its outputs still checked.
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
    output = x + y
    tl.store(out_ptr + offsets, output, mask=mask)


_seen = []  # (x, y, out): copies of the inputs, and what they gave


def add_wrapper(x, y):
    for a, b, out in _seen:
        if a.shape == x.shape and a.dtype == x.dtype and torch.equal(a, x) and torch.equal(b, y):
            return out
    out = torch.zeros_like(x)
    BLOCK_SIZE = 4
    n_elements = x.numel()
    num_blocks = (n_elements + BLOCK_SIZE - 1) // BLOCK_SIZE
    add_kernel[(num_blocks,)](x, y, out, n_elements, BLOCK_SIZE)
    _seen.append((x.clone(), y.clone(), out))
    return out
