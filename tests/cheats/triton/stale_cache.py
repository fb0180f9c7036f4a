# CHEAT (a cached result after the first call), against G/add_example: add_wrapper computes the
# first call of each shape and hands back that very result for every later input of the same
# shape. The test calls each shape once, so every test case is right. The timer used to give
# its timed calls copies of the test's inputs (the same content) and never looked at what they
# returned: nothing was launched in them, and the speedup was a fiction. Now every timed call
# gets new content and its output is checked against the reference's on the same inputs: the
# verdict is timed_mismatch, with no speedup.
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


_results = {}


def add_wrapper(x, y):
    key = (tuple(x.shape), x.dtype, x.device)
    if key in _results:
        return _results[key]
    out = torch.zeros_like(x)
    BLOCK_SIZE = 4
    n_elements = x.numel()
    num_blocks = (n_elements + BLOCK_SIZE - 1) // BLOCK_SIZE
    add_kernel[(num_blocks,)](x, y, out, n_elements, BLOCK_SIZE)
    _results[key] = out
    return out
